package storetest

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

// wordEmbedder hashes words into a small vector: notes sharing words are
// near, which is all the history test needs of an embedder.
type wordEmbedder struct{}

func (wordEmbedder) Name() string    { return "storetest-words" }
func (wordEmbedder) Dimensions() int { return 16 }
func (wordEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 16)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%16]++
		}
		out[i] = v
	}
	return out, nil
}

// evolvingCurator links every candidate and evolves each, so concurrent
// enrichments keep rewriting the same neighbours.
type evolvingCurator struct{}

func (evolvingCurator) Construct(_ context.Context, n amem.Note) (amem.Attributes, error) {
	w := strings.Fields(n.Content)
	return amem.Attributes{Keywords: []string{w[len(w)-1]}, Context: "about " + w[len(w)-1]}, nil
}

func (evolvingCurator) Connect(_ context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
	var d amem.Decision
	for _, c := range cands {
		ctx := c.Note.Context + "; seen by " + n.ID[20:]
		d.Links = append(d.Links, amem.LinkDecision{Target: c.Note.ID, Strength: 0.5})
		d.Evolve = append(d.Evolve, amem.Evolution{Target: c.Note.ID, Context: &ctx,
			Tags: append(append([]string{}, c.Note.Tags...), "t"+n.ID[24:])})
	}
	return d, nil
}

// testHistoryUnderConcurrentEvolution runs two Memories (as two processes
// would) over the store, adding notes at once so that their enrichments
// evolve the same neighbours, then checks the invariant Memory's history
// rests on: every note's versions are 1..N, one row each, N its version.
func testHistoryUnderConcurrentEvolution(t *testing.T, s amem.Store) {
	ns := newNS("history")
	opts := &memory.Options{Embedder: wordEmbedder{}, Curator: evolvingCurator{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var mems []*memory.Memory
	for range 2 {
		m, err := memory.Open(t.Context(), s, opts)
		if err != nil {
			t.Fatal(err)
		}
		mems = append(mems, m)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := mems[w%2]
			for i := range 8 {
				_, err := m.Add(t.Context(), amem.AddRequest{Namespace: ns,
					Content: fmt.Sprintf("shared garden topic %d from writer %d", i, w)})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkHistories(t, s, ns, 32)
}

// checkHistories checks every note of ns has versions exactly 1..Version.
func checkHistories(t *testing.T, s amem.Store, ns string, want int) {
	t.Helper()
	evolved := 0
	view(t, s, func(tx amem.Tx) error {
		notes, err := tx.ListNotes(ns, amem.ListQuery{Limit: 10000})
		if err != nil {
			return err
		}
		if len(notes) != want {
			t.Errorf("%d notes, want %d", len(notes), want)
		}
		for _, n := range notes {
			vs, err := tx.Versions(ns, n.ID)
			if err != nil {
				return err
			}
			if len(vs) != n.Version {
				t.Errorf("note %s at version %d has %d history rows", n.ID, n.Version, len(vs))
			}
			for i, v := range vs {
				if v.Version != i+1 {
					t.Errorf("note %s: history row %d is version %d", n.ID, i, v.Version)
					break
				}
			}
			if n.Enrichment.State != amem.EnrichDone {
				t.Errorf("note %s left %s", n.ID, n.Enrichment.State)
			}
			if n.Version > 2 {
				evolved++
			}
		}
		return nil
	})
	if evolved == 0 {
		t.Errorf("no note was evolved: the test exercised nothing")
	}
}
