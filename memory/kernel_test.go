package memory_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
	"github.com/amem-dev/amem/sqlite"
)

// checkContinuous fails unless the note's history is versions 1..N, N its
// version, and its latest version can be restored.
func checkContinuous(t *testing.T, mem *memory.Memory, ns, id string) amem.Note {
	t.Helper()
	ctx := context.Background()
	n, err := mem.Get(ctx, ns, id)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := mem.History(ctx, ns, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != n.Version {
		t.Fatalf("note at version %d has %d history rows", n.Version, len(vs))
	}
	for i, v := range vs {
		if v.Version != i+1 {
			t.Fatalf("history row %d is version %d", i, v.Version)
		}
	}
	if _, err := mem.Restore(ctx, ns, id, n.Version); err != nil {
		t.Fatalf("restore of the latest version %d: %v", n.Version, err)
	}
	return n
}

// A re-enrichment that changes nothing must not bump the version (it did,
// and the new version had no history row: restore of it was 404); one
// that changes attributes writes a version with its row.
func TestReenrichmentKeepsHistoryContinuous(t *testing.T) {
	var calls atomic.Int32
	cur := &mock.Curator{ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
		if calls.Add(1) == 3 {
			return amem.Attributes{Keywords: []string{"changed"}}, nil
		}
		return amem.Attributes{Keywords: []string{"same"}, Context: "A note."}, nil
	}}
	mem := openMem(t, cur)
	ctx := context.Background()
	n := mustAdd(t, mem, "ns", "a note to enrich again")
	if n.Version != 2 {
		t.Fatalf("after add: version %d, want 2", n.Version)
	}
	again, err := mem.Enrich(ctx, "ns", n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again.Version != 2 || again.Enrichment.Attempts != 2 {
		t.Fatalf("re-enrichment that changed nothing: version %d, attempts %d; want 2, 2", again.Version, again.Enrichment.Attempts)
	}
	checkContinuous(t, mem, "ns", n.ID)
	changed, err := mem.Enrich(ctx, "ns", n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Version != 3 { // restoring the current version changed nothing
		t.Fatalf("re-enrichment that changed keywords: version %d, want 3", changed.Version)
	}
	checkContinuous(t, mem, "ns", n.ID)
}

// usageCurator reports 100 prompt tokens per call.
func usageCurator(connect func(ctx context.Context, n amem.Note) error) *mock.Curator {
	return &mock.Curator{
		ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
			return amem.Attributes{Keywords: []string{"k"}, Usage: amem.Usage{PromptTokens: 100, CompletionTokens: 10}}, nil
		},
		ConnectFunc: func(ctx context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
			err := connect(ctx, n)
			return amem.Decision{Usage: amem.Usage{PromptTokens: 100, CompletionTokens: 20}}, err
		},
	}
}

func spent(t *testing.T, mem *memory.Memory, ns, id string) map[string]amem.Usage {
	t.Helper()
	totals, err := mem.NoteUsage(context.Background(), ns, id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]amem.Usage{}
	for _, u := range totals {
		out[u.Operation] = u.Usage
	}
	return out
}

// Tokens a curator spent are recorded whatever happens to its plan.
func TestTokensRecordedWhateverHappensToThePlan(t *testing.T) {
	want := map[string]amem.Usage{"construct": {PromptTokens: 100, CompletionTokens: 10}, "connect": {PromptTokens: 100, CompletionTokens: 20}}
	check := func(t *testing.T, mem *memory.Memory, ns, id string) {
		t.Helper()
		got := spent(t, mem, ns, id)
		if len(got) != 2 || got["construct"] != want["construct"] || got["connect"] != want["connect"] {
			t.Fatalf("recorded %v, want %v", got, want)
		}
	}

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		mem := openOpts(t, filepath.Join(t.TempDir(), "c.db"), memory.Options{Embedder: lexical.New(nil), Logger: quiet, Enrich: enrich.Options{Async: true},
			Curator: usageCurator(func(context.Context, amem.Note) error { cancel(); return context.Canceled })})
		defer mem.Close()
		n := mustAdd(t, mem, "ns", "cancelled during connect")
		if _, err := mem.Enrich(ctx, "ns", n.ID); !errors.Is(err, context.Canceled) {
			t.Fatalf("Enrich: %v, want context.Canceled", err)
		}
		check(t, mem, "ns", n.ID)
		if got, _ := mem.Get(context.Background(), "ns", n.ID); got.Enrichment.State != amem.EnrichPending {
			t.Fatalf("a cancelled enrichment left the note %s, want pending", got.Enrichment.State)
		}
	})

	t.Run("dropped", func(t *testing.T) {
		var mem *memory.Memory
		edited := false
		mem = openOpts(t, filepath.Join(t.TempDir(), "d.db"), memory.Options{Embedder: lexical.New(nil), Logger: quiet, Enrich: enrich.Options{Async: true},
			Curator: usageCurator(func(ctx context.Context, n amem.Note) error {
				if !edited { // the user edits the note while the curator works
					edited = true
					content := "edited meanwhile"
					if _, err := mem.Update(ctx, "ns", n.ID, amem.UpdateRequest{Content: &content}); err != nil {
						return err
					}
				}
				return nil
			})})
		defer mem.Close()
		n := mustAdd(t, mem, "ns", "edited during connect")
		if _, err := mem.Enrich(context.Background(), "ns", n.ID); err != nil {
			t.Fatal(err)
		}
		check(t, mem, "ns", n.ID)
		if got, _ := mem.Get(context.Background(), "ns", n.ID); got.Content != "edited meanwhile" || got.Enrichment.State != amem.EnrichPending {
			t.Fatalf("after a dropped plan: %q %s, want the edit, pending", got.Content, got.Enrichment.State)
		}
	})

	t.Run("failed", func(t *testing.T) {
		mem := openOpts(t, filepath.Join(t.TempDir(), "f.db"), memory.Options{Embedder: lexical.New(nil), Logger: quiet, Enrich: enrich.Options{Async: true},
			Curator: usageCurator(func(context.Context, amem.Note) error { return errors.New("model refused") })})
		defer mem.Close()
		n := mustAdd(t, mem, "ns", "refused during connect")
		var ee *memory.EnrichError
		if _, err := mem.Enrich(context.Background(), "ns", n.ID); !errors.As(err, &ee) {
			t.Fatalf("Enrich: %v, want an EnrichError", err)
		}
		check(t, mem, "ns", n.ID)
	})
}

// gateEmbedder blocks embedding any text containing "SLOW" until gate is
// closed, signalling started when it begins to wait.
type gateEmbedder struct {
	amem.Embedder
	gate    chan struct{}
	started chan struct{}
	once    sync.Once
}

func (g *gateEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if strings.Contains(t, "SLOW") {
			g.once.Do(func() { close(g.started) })
			select {
			case <-g.gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return g.Embedder.Embed(ctx, texts)
}

// No write waits behind an embedder call: while one update's embedding
// hangs, other writes to the namespace, reads and searches go through.
func TestNoWriteWaitsBehindAnEmbedding(t *testing.T) {
	emb := &gateEmbedder{Embedder: lexical.New(nil), gate: make(chan struct{}), started: make(chan struct{})}
	mem := openOpts(t, filepath.Join(t.TempDir(), "g.db"), memory.Options{Embedder: emb, Logger: quiet})
	defer mem.Close()
	ctx := context.Background()
	a := mustAdd(t, mem, "ns", "note a")
	b := mustAdd(t, mem, "ns", "note b")

	updated := make(chan error, 1)
	go func() {
		content := "note a, SLOW to embed"
		_, err := mem.Update(ctx, "ns", a.ID, amem.UpdateRequest{Content: &content})
		updated <- err
	}()
	<-emb.started
	done := make(chan error, 1)
	go func() {
		if err := mem.Delete(ctx, "ns", b.ID); err != nil {
			done <- err
			return
		}
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "note c"}); err != nil {
			done <- err
			return
		}
		_, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "note"})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a delete, add and search waited behind another write's embedding")
	}
	close(emb.gate)
	if err := <-updated; err != nil {
		t.Fatal(err)
	}
}

// Two Memories over one store (two processes, in effect) running workers
// over one queue: every note is constructed exactly once.
func TestTwoMemoriesEnrichEachNoteOnce(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "q.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	built := map[string]int{}
	cur := &mock.Curator{ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
		mu.Lock()
		built[n.ID]++
		mu.Unlock()
		time.Sleep(time.Millisecond)
		return amem.Attributes{Keywords: []string{"k"}}, nil
	}}
	var mems []*memory.Memory
	for range 2 {
		m, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Curator: cur, Enrich: enrich.Options{Async: true}, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		mems = append(mems, m)
		stop := runWorkers(t, m, memory.WorkerOptions{Workers: 3, PollInterval: 5 * time.Millisecond})
		defer stop()
	}
	defer mems[0].Close()
	var reqs []amem.AddRequest
	for i := range 60 {
		reqs = append(reqs, amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("queued note %d", i)})
	}
	if _, err := mems[1].AddBatch(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	waitStates(t, mems[0], "ns", 60, amem.EnrichDone)
	mu.Lock()
	defer mu.Unlock()
	if len(built) != 60 {
		t.Fatalf("%d notes constructed, want 60", len(built))
	}
	for id, c := range built {
		if c != 1 {
			t.Errorf("note %s constructed %d times", id, c)
		}
	}
}

// twoOnOneStore opens two Memories over one SQLite store, as two
// processes would share a database.
func twoOnOneStore(t *testing.T, o memory.Options) (a, b *memory.Memory) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "shared.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Embedder == nil {
		o.Embedder = lexical.New(nil)
	}
	o.Logger = quiet
	var mems [2]*memory.Memory
	for i := range mems {
		if mems[i], err = memory.Open(ctx, st, &o); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { mems[0].Close() })
	return mems[0], mems[1]
}

func vectorIDs(t *testing.T, mem *memory.Memory, ns, q string) []string {
	t.Helper()
	res, err := mem.Search(context.Background(), amem.SearchRequest{Namespace: ns, Query: q, Mode: amem.SearchVector, K: 50, LinksPerHit: -1})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res {
		ids = append(ids, r.Note.ID)
	}
	return ids
}

// One Memory's writes and deletes reach the other's vector index at its
// next search, also after the feed's tombstones were compacted past it.
func TestIndexFollowsOtherWriters(t *testing.T) {
	a, b := twoOnOneStore(t, memory.Options{})
	ctx := context.Background()
	first := mustAdd(t, a, "ns", "apples and pears")
	if ids := vectorIDs(t, b, "ns", "apples"); !slices.Contains(ids, first.ID) {
		t.Fatalf("b missed a's note: %v", ids)
	}
	second := mustAdd(t, a, "ns", "apples in the orchard")
	if ids := vectorIDs(t, b, "ns", "apples"); !slices.Contains(ids, second.ID) {
		t.Fatalf("b missed a's second note once its index was loaded: %v", ids)
	}
	if err := a.Delete(ctx, "ns", first.ID); err != nil {
		t.Fatal(err)
	}
	if ids := vectorIDs(t, b, "ns", "apples"); slices.Contains(ids, first.ID) {
		t.Fatalf("b still finds the note a deleted: %v", ids)
	}

	// b falls behind: a deletes, and the tombstone is compacted away
	// before b searches again. b must notice it is behind the horizon and
	// reload rather than keep the deleted note.
	if err := a.Delete(ctx, "ns", second.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := a.CompactFeeds(ctx, time.Now().Add(time.Minute)); err != nil || n != 2 {
		t.Fatalf("CompactFeeds: %d, %v", n, err)
	}
	third := mustAdd(t, a, "ns", "apples again")
	ids := vectorIDs(t, b, "ns", "apples")
	if slices.Contains(ids, second.ID) || !slices.Contains(ids, third.ID) {
		t.Fatalf("after compaction b finds %v, want %s and not %s", ids, third.ID, second.ID)
	}
}

// Past the index budget, namespaces used least recently are dropped and
// reloaded when used again, with the same answers.
func TestIndexBudgetEvictsColdNamespaces(t *testing.T) {
	mem := openOpts(t, filepath.Join(t.TempDir(), "e.db"), memory.Options{Embedder: lexical.New(nil), Logger: quiet, Indexes: kernel.Options{IndexBudget: 1}})
	defer mem.Close()
	want := map[string]string{}
	for _, ns := range []string{"one", "two", "three"} {
		want[ns] = mustAdd(t, mem, ns, "the "+ns+" namespace's note").ID
	}
	for range 3 {
		for _, ns := range []string{"one", "two", "three"} {
			if ids := vectorIDs(t, mem, ns, "namespace"); len(ids) != 1 || ids[0] != want[ns] {
				t.Fatalf("%s: %v, want [%s]", ns, ids, want[ns])
			}
		}
	}
}
