package memory_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/lexindex"
	"github.com/amem-dev/amem/offline"
)

// The in-process indexes stay equal to the store after random
// interleavings of add, update, evolve (the offline curator evolves
// neighbours as it links), re-enrich, delete and restore, made through two
// Memories over one store, as two processes would: each one's vector and
// full-text rankings are those computed from scratch out of the store's
// notes. With the approximate index (from 20 notes, saved in one
// directory for both), the vector rankings are held to a recall@10 of
// 0.95 instead, with exact scores.
func TestIndexesFollowTheStore(t *testing.T) {
	t.Run("exact", func(t *testing.T) { checkFollow(t, -1) })
	t.Run("approximate", func(t *testing.T) { checkFollow(t, 20) })
}

func checkFollow(t *testing.T, approximateFrom int) {
	emb := lexical.New(nil)
	a, b := twoOnOneStore(t, memory.Options{Embedder: emb, Curator: offline.New(emb, nil),
		Indexes: kernel.Options{ApproximateFrom: approximateFrom, IndexDir: t.TempDir()}})
	mems := []*memory.Memory{a, b}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(12, 34))
	words := strings.Fields("garden river painting dog cat museum concert hike coffee book sister camping pottery adoption school beach")
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	const ns = "follow"
	var ids, trashed []string
	pick := func() string { return ids[r.IntN(len(ids))] }
	for step := range 150 {
		m := mems[r.IntN(2)]
		var err error
		switch op := r.IntN(10); {
		case op < 4 || len(ids) < 4:
			var n amem.Note
			n, err = m.Add(ctx, amem.AddRequest{Namespace: ns, Content: text(3 + r.IntN(6))})
			ids = append(ids, n.ID)
		case op < 6:
			c := text(2 + r.IntN(5))
			_, err = m.Update(ctx, ns, pick(), amem.UpdateRequest{Content: &c})
		case op == 6:
			tags := []string{words[r.IntN(len(words))]}
			_, err = m.Update(ctx, ns, pick(), amem.UpdateRequest{Tags: &tags})
		case op == 7:
			i := r.IntN(len(ids))
			err = m.Delete(ctx, ns, ids[i])
			trashed = append(trashed, ids[i])
			ids = slices.Delete(ids, i, i+1)
		case op == 9 && len(trashed) > 0 && r.IntN(2) == 0:
			// Restored by either process: back in both processes' indexes.
			i := r.IntN(len(trashed))
			_, err = m.Trash().Restore(ctx, ns, trashed[i])
			ids = append(ids, trashed[i])
			trashed = slices.Delete(trashed, i, i+1)
		case op == 8:
			_, err = m.Restore(ctx, ns, pick(), 1)
		default:
			_, err = m.Enrich(ctx, ns, pick())
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if step%15 == 14 {
			for i, m := range mems {
				checkIndexes(t, fmt.Sprintf("step %d, memory %d", step, i), m, ns, r, words)
			}
		}
	}
	if approximateFrom > 0 {
		for i, m := range mems {
			waitApproximate(t, m, ns)
			checkIndexes(t, fmt.Sprintf("at the end, memory %d", i), m, ns, r, words)
		}
	}
}

// checkIndexes compares the Memory's rankings with rankings computed from
// the store's notes: exhaustive BM25 over an index built from them, and
// the cosine of every embedding.
func checkIndexes(t *testing.T, where string, m *memory.Memory, ns string, r *rand.Rand, words []string) {
	t.Helper()
	ctx := context.Background()
	notes, err := m.List(ctx, ns, amem.ListQuery{Limit: amem.MaxK, Embeddings: true})
	if err != nil {
		t.Fatal(err)
	}
	ix := lexindex.New()
	for _, n := range notes {
		ix.Upsert(n.ID, lexindex.Fields{Content: n.Content, Context: n.Context, Keywords: n.Keywords, Tags: n.Tags})
	}
	search := func(q string, mode amem.SearchMode) []amem.Scored {
		res, err := m.Search(ctx, amem.SearchRequest{Namespace: ns, Query: q, K: amem.MaxK, Mode: mode, LinksPerHit: -1})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]amem.Scored, len(res))
		for i, x := range res {
			out[i] = amem.Scored{ID: x.Note.ID, Score: x.Score}
		}
		return out
	}
	for range 4 {
		q := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + " what did they do"
		got, want := search(q, amem.SearchLexical), ix.Exhaustive(q, amem.MaxK, nil)
		if len(got) != len(want) {
			t.Fatalf("%s: lexical %q: %d hits, the store's notes give %d", where, q, len(got), len(want))
		}
		// Scores are relevances: the share of the query each BM25 is.
		rq := ix.Resolve(q)
		for i := range got {
			rel := memory.DefaultRelevance.Lexical.Prob(0, rq.Share(want[i].Score))
			if got[i].ID != want[i].ID || math.Abs(got[i].Score-rel) > 1e-9 {
				t.Fatalf("%s: lexical %q: hit %d is %v, the store's notes give %v (relevance %v)", where, q, i, got[i], want[i], rel)
			}
		}

		qv, err := m.Embedder().Embed(ctx, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		var oracle []amem.Scored
		for _, n := range notes {
			if len(n.Embedding) > 0 {
				oracle = append(oracle, amem.Scored{ID: n.ID, Score: cosine(qv[0], n.Embedding)})
			}
		}
		slices.SortFunc(oracle, func(a, b amem.Scored) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
		})
		if approx, _ := m.Approximate(ns); approx {
			if got := recall(t, m, ns, 10, []string{q}, amem.Filter{}, nil); got < 0.95 {
				t.Fatalf("%s: vector %q: recall@10 %.2f", where, q, got)
			}
			continue
		}
		checkVectorRanking(t, where+": vector "+q, search(q, amem.SearchVector), oracle, amem.MaxK, memory.DefaultRelevance.Vector)
	}
}
