package memory_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
)

func openAsync(t *testing.T, path string, cur amem.Curator) *memory.Memory {
	return openOpts(t, path, memory.Options{Embedder: lexical.New(nil), Curator: cur, Enrich: enrich.Options{Async: true}, Logger: quiet})
}

// waitStates polls until the namespace's notes are all in state want.
func waitStates(t *testing.T, mem *memory.Memory, ns string, total int, want amem.EnrichState) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := mem.Stats(context.Background(), ns)
		if err != nil {
			t.Fatal(err)
		}
		if len(st) == 1 && st[0].ByState[want] == total {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("notes not %s in time: %+v", want, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func runWorkers(t *testing.T, mem *memory.Memory, o memory.WorkerOptions) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mem.RunWorkers(ctx, o) }()
	return func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("RunWorkers returned %v, want context.Canceled", err)
		}
	}
}

func TestAsyncAddIsEnrichedByWorkers(t *testing.T) {
	mem := openAsync(t, filepath.Join(t.TempDir(), "w.db"), linkAllCurator())
	defer mem.Close()
	stop := runWorkers(t, mem, memory.WorkerOptions{PollInterval: time.Hour}) // only wake-ups
	defer stop()
	for i := range 10 {
		n, err := mem.Add(context.Background(), amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("note %d about gardening", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && n.Enrichment.State != amem.EnrichPending {
			t.Fatalf("async Add returned state %s, want pending", n.Enrichment.State)
		}
	}
	waitStates(t, mem, "ns", 10, amem.EnrichDone)
	st, _ := mem.Stats(context.Background(), "ns")
	if st[0].Links == 0 {
		t.Fatal("background enrichment made no links")
	}
}

func TestPendingNotesSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	mem := openAsync(t, path, linkAllCurator())
	for i := range 5 {
		mustAdd(t, mem, "ns", fmt.Sprintf("pending note %d", i))
	}
	mem.Close() // the process "dies" with every note pending
	mem = openAsync(t, path, linkAllCurator())
	defer mem.Close()
	stop := runWorkers(t, mem, memory.WorkerOptions{PollInterval: 10 * time.Millisecond})
	defer stop()
	waitStates(t, mem, "ns", 5, amem.EnrichDone)
}

func TestWorkersRetryWithBackoffThenGiveUp(t *testing.T) {
	var calls atomic.Int32
	flaky := &mock.Curator{ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
		if n.Content == "always fails" || calls.Add(1) <= 2 {
			return amem.Attributes{}, errors.New("model timed out")
		}
		return amem.Attributes{Keywords: []string{"ok"}}, nil
	}}
	mem := openOpts(t, filepath.Join(t.TempDir(), "b.db"), memory.Options{Embedder: lexical.New(nil), Curator: flaky,
		Logger: quiet, Enrich: enrich.Options{Async: true, RetryBackoff: 20 * time.Millisecond, MaxAttempts: 4}})
	defer mem.Close()
	stop := runWorkers(t, mem, memory.WorkerOptions{PollInterval: 5 * time.Millisecond})
	defer stop()
	ok := mustAdd(t, mem, "ns", "recovers")
	bad := mustAdd(t, mem, "bad", "always fails")
	waitStates(t, mem, "ns", 1, amem.EnrichDone)
	got, _ := mem.Get(context.Background(), "ns", ok.ID)
	if got.Enrichment.Attempts != 3 {
		t.Fatalf("attempts %d, want 3 (two failures, then success)", got.Enrichment.Attempts)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := mem.Get(context.Background(), "bad", bad.ID)
		if b.Enrichment.Attempts >= 4 {
			time.Sleep(100 * time.Millisecond) // would a fifth attempt come?
			b, _ = mem.Get(context.Background(), "bad", bad.ID)
			if b.Enrichment.Attempts != 4 || b.Enrichment.State != amem.EnrichFailed {
				t.Fatalf("gave up at %+v, want failed after 4 attempts", b.Enrichment)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("retries stalled at %+v", b.Enrichment)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// countingCurator counts Construct calls, each taking a while, so that
// enrichments of one note would overlap if nothing kept them apart.
func countingCurator(calls *atomic.Int32) *mock.Curator {
	return &mock.Curator{ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
		calls.Add(1)
		time.Sleep(30 * time.Millisecond)
		return amem.Attributes{Keywords: []string{"counted"}}, nil
	}}
}

func TestWaitedAddIsEnrichedOnceWithWorkers(t *testing.T) {
	var calls, reported atomic.Int32
	mem := openOpts(t, filepath.Join(t.TempDir(), "w.db"), memory.Options{
		Embedder: lexical.New(nil), Curator: countingCurator(&calls), Logger: quiet,
		Enrich: enrich.Options{Async: true, OnEnrich: func(amem.Note, error) { reported.Add(1) }},
	})
	defer mem.Close()
	stop := runWorkers(t, mem, memory.WorkerOptions{PollInterval: 5 * time.Millisecond})
	defer stop()
	const n = 8
	for i := range n {
		note, err := mem.Add(context.Background(), amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("waited note %d", i), Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		if note.Enrichment.State != amem.EnrichDone {
			t.Fatalf("Add with Wait returned state %s", note.Enrichment.State)
		}
	}
	waitStates(t, mem, "ns", n, amem.EnrichDone)
	time.Sleep(50 * time.Millisecond) // a duplicate worker run would show now
	if got := calls.Load(); got != n {
		t.Fatalf("%d construct calls for %d notes: the workers enriched waited notes again", got, n)
	}
	if got := reported.Load(); got != n {
		t.Fatalf("OnEnrich called %d times for %d enrichments", got, n)
	}
}

func TestAddBatchIsAtomic(t *testing.T) {
	mem := openAsync(t, filepath.Join(t.TempDir(), "b.db"), linkAllCurator())
	defer mem.Close()
	ctx := context.Background()
	_, err := mem.AddBatch(ctx, []amem.AddRequest{
		{Namespace: "ns", Content: "fine"},
		{Namespace: "ns", Content: ""},
	})
	if !errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), "note 1") {
		t.Fatalf("AddBatch with a bad note: %v", err)
	}
	if st, _ := mem.Stats(ctx, "ns"); len(st) != 0 && st[0].Notes != 0 {
		t.Fatalf("a failed batch stored notes: %+v", st)
	}
	reqs := make([]amem.AddRequest, 50)
	for i := range reqs {
		reqs[i] = amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("batch note %d", i)}
	}
	notes, err := mem.AddBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range notes {
		if n.Content != reqs[i].Content || n.Enrichment.State != amem.EnrichPending {
			t.Fatalf("note %d: %q %s", i, n.Content, n.Enrichment.State)
		}
	}
	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "batch note 7", K: 3, Mode: amem.SearchVector})
	if err != nil || len(res) == 0 {
		t.Fatalf("batch notes not searchable: %v %v", res, err)
	}
	if _, err := mem.AddBatch(ctx, make([]amem.AddRequest, amem.MaxBatch+1)); !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("oversized batch: %v", err)
	}
}

// TestAddReturnsStoredNoteWhenEnrichmentIsCut: the note is acknowledged
// once stored, so a deadline during enrichment must not turn into an
// error that makes the caller add it again.
func TestAddReturnsStoredNoteWhenEnrichmentIsCut(t *testing.T) {
	// The caller's context ends once enrichment has begun, which is after
	// the note is stored: a deadline would race the store on a busy
	// machine.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := &mock.Curator{ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
		cancel()
		<-ctx.Done()
		return amem.Attributes{}, ctx.Err()
	}}
	mem := openOpts(t, filepath.Join(t.TempDir(), "c.db"), memory.Options{Embedder: lexical.New(nil), Curator: slow, Logger: quiet})
	defer mem.Close()
	n, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "stored before the deadline"})
	if err != nil {
		t.Fatalf("Add: %v", err)
	}
	if n.ID == "" || n.Enrichment.State != amem.EnrichPending {
		t.Fatalf("Add returned %+v, want the stored note, pending", n)
	}
	got, err := mem.Get(context.Background(), "ns", n.ID)
	if err != nil || got.Content != n.Content || got.Enrichment.State != amem.EnrichPending {
		t.Fatalf("stored note: %+v, %v", got, err)
	}
}
