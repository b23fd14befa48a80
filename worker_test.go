package amem_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
)

func openAsync(t *testing.T, path string, cur amem.Curator) *amem.Memory {
	return openOpts(t, path, amem.Options{Embedder: lexical.New(nil), Curator: cur, Async: true, Logger: quiet})
}

// waitStates polls until the namespace's notes are all in state want.
func waitStates(t *testing.T, mem *amem.Memory, ns string, total int, want amem.EnrichState) {
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

func runWorkers(t *testing.T, mem *amem.Memory, o amem.WorkerOptions) (stop func()) {
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
	stop := runWorkers(t, mem, amem.WorkerOptions{PollInterval: time.Hour}) // only wake-ups
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
	stop := runWorkers(t, mem, amem.WorkerOptions{PollInterval: 10 * time.Millisecond})
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
	mem := openAsync(t, filepath.Join(t.TempDir(), "b.db"), flaky)
	defer mem.Close()
	stop := runWorkers(t, mem, amem.WorkerOptions{PollInterval: 5 * time.Millisecond, BaseBackoff: 20 * time.Millisecond, MaxAttempts: 4})
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
