package memory_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/searchtune"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/lexindex"
	"github.com/amem-dev/amem/sqlite"
)

// TestSearchFilterOracle holds filtered search to a brute-force oracle in
// every mode: every result passes the filter, and up to k they are the
// best notes that pass it. Vector: cosine over all passing notes. Lexical:
// the store's unfiltered ranking with the failing notes left out. Hybrid:
// those two rankings, read to Search's depth, fused. One fixed seed and a
// few random ones; a failure names its seed. Under the race detector it
// draws fewer: it runs in one goroutine, and the SQLite driver crawls.
func TestSearchFilterOracle(t *testing.T) {
	seeds, queries := []uint64{20261202, rand.Uint64(), rand.Uint64(), rand.Uint64()}, 30
	if raceOn {
		seeds, queries = seeds[:2], 4
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { checkFilterOracle(t, seed, queries, -1) })
	}
}

// TestSearchFilterOracleApproximate is the oracle test through the
// approximate index: every result passes the filter; a selective filter
// (under a twentieth of the notes) gets exactly the oracle's ranking,
// and other filters a recall of at least 0.95 over all queries.
func TestSearchFilterOracleApproximate(t *testing.T) {
	seeds, queries := []uint64{20261203, rand.Uint64()}, 30
	if raceOn {
		seeds, queries = seeds[:1], 6
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { checkFilterOracle(t, seed, queries, 50) })
	}
}

var (
	oracleWords = strings.Fields("garden river apple stone cloud music paper window bread horse candle forest")
	oracleTags  = []string{"red", "green", "blue", "gold"}
	oracleMeta  = map[string][]string{"src": {"chat", "mail", "Chat"}, "who": {"ada", "bob"}}
)

// randomCase writes s in lower, upper or title case.
func randomCase(r *rand.Rand, s string) string {
	switch r.IntN(3) {
	case 0:
		return strings.ToUpper(s)
	case 1:
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

func randomWords(r *rand.Rand, lo, hi int) string {
	words := make([]string, lo+r.IntN(hi-lo+1))
	for i := range words {
		words[i] = oracleWords[r.IntN(len(oracleWords))]
	}
	return strings.Join(words, " ")
}

// oracleNotes writes n random notes straight to a new store, as if
// imported (Add would give a zero event time the time of adding), and
// returns them with their embeddings.
func oracleNotes(t *testing.T, r *rand.Rand, path, ns string, emb amem.Embedder, n int) []amem.Note {
	t.Helper()
	ctx := context.Background()
	day0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	notes := make([]amem.Note, n)
	texts := make([]string, n)
	for i := range notes {
		texts[i] = randomWords(r, 2, 10)
		note := amem.Note{
			ID: fmt.Sprintf("0%025d", i+1), Namespace: ns, Content: texts[i],
			IngestTime: day0, UpdatedAt: day0, Keywords: []string{}, Tags: []string{}, Links: []amem.Link{},
			Version: 1, Enrichment: amem.Enrichment{State: amem.EnrichDone},
		}
		if r.IntN(8) > 0 {
			// Whole days, so that bounds often fall on a note's time.
			note.EventTime = day0.Add(time.Duration(r.IntN(30)) * 24 * time.Hour)
			if r.IntN(2) == 0 {
				note.EventTime = note.EventTime.Add(time.Duration(r.IntN(24*60)) * time.Minute)
			}
		}
		for _, tag := range oracleTags {
			if r.IntN(3) == 0 {
				note.Tags = append(note.Tags, randomCase(r, tag))
			}
		}
		for k, vs := range oracleMeta {
			if r.IntN(2) == 0 {
				if note.Metadata == nil {
					note.Metadata = map[string]string{}
				}
				note.Metadata[k] = vs[r.IntN(len(vs))]
			}
		}
		notes[i] = note
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(ctx, func(tx amem.Tx) error {
		if err := tx.PutNamespace(amem.NamespaceInfo{Name: ns, Embedder: emb.Name(), Dimensions: emb.Dimensions(), CreatedAt: day0}); err != nil {
			return err
		}
		for i := range notes {
			notes[i].Embedding = vecs[i]
			if err := tx.InsertNote(notes[i]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return notes
}

// randomFilter draws a filter: any mix of tags (any case, sometimes one no
// note has), metadata pairs and time bounds, often empty.
func randomFilter(r *rand.Rand) amem.Filter {
	var f amem.Filter
	day0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	day := func() time.Time { return day0.Add(time.Duration(r.IntN(32)-1) * 24 * time.Hour) }
	for range r.IntN(3) {
		f.Tags = append(f.Tags, randomCase(r, oracleTags[r.IntN(len(oracleTags))]))
	}
	if r.IntN(12) == 0 {
		f.Tags = append(f.Tags, "purple")
	}
	for k, vs := range oracleMeta {
		if r.IntN(4) == 0 {
			if f.Metadata == nil {
				f.Metadata = map[string]string{}
			}
			f.Metadata[k] = vs[r.IntN(len(vs))]
		}
	}
	switch r.IntN(4) {
	case 1:
		f.From = day()
	case 2:
		f.To = day()
	case 3:
		f.From, f.To = day(), day()
		if f.To.Before(f.From) {
			f.From, f.To = f.To, f.From
		}
		if f.To.Equal(f.From) { // an empty range is an error, tested elsewhere
			f.To = f.To.Add(24 * time.Hour)
		}
	}
	return f
}

// passes is the filter's documented rule, written out plainly.
func passes(n amem.Note, f amem.Filter) bool {
	if !f.From.IsZero() || !f.To.IsZero() {
		if n.EventTime.IsZero() || !f.From.IsZero() && n.EventTime.Before(f.From) || !f.To.IsZero() && !n.EventTime.Before(f.To) {
			return false
		}
	}
	for _, want := range f.Tags {
		if !slices.ContainsFunc(n.Tags, func(tag string) bool { return strings.ToLower(tag) == strings.ToLower(want) }) {
			return false
		}
	}
	for k, v := range f.Metadata {
		if got, ok := n.Metadata[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// cosineSlack absorbs float32 rounding: the index sums in float32, in its
// own order, so notes whose cosines differ by less than this (the same
// words in another order) may rank either way.
const cosineSlack = 1e-5

func checkFilterOracle(t *testing.T, seed uint64, queries, approximateFrom int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 7))
	const ns = "oracle"
	emb := lexical.New(nil)
	path := filepath.Join(t.TempDir(), "oracle.db")
	notes := oracleNotes(t, r, path, ns, emb, 200)
	const lexWeight = 2.5 // not 1, so that the weights are checked
	rel := memory.DefaultRelevance
	mem := openOpts(t, path, memory.Options{Embedder: emb, Search: memory.SearchOptions{LexicalWeight: lexWeight}, Indexes: kernel.Options{ApproximateFrom: approximateFrom}, Logger: quiet})
	defer mem.Close()
	if approximateFrom > 0 {
		waitApproximate(t, mem, ns)
	}
	var hits, wants int // the approximate rankings' recall
	byID := make(map[string]amem.Note, len(notes))
	for _, n := range notes {
		byID[n.ID] = n
	}

	// The unfiltered lexical ranking of every note: exhaustive BM25 over
	// an index of its own.
	ix := lexindex.New()
	for _, n := range notes {
		ix.Upsert(n.ID, lexindex.Fields{Content: n.Content, Context: n.Context, Keywords: n.Keywords, Tags: n.Tags})
	}
	unfiltered := func(q string) []amem.Scored {
		var out []amem.Scored
		for _, h := range ix.Exhaustive(q, len(notes), nil) {
			out = append(out, amem.Scored{ID: h.ID, Score: h.Score})
		}
		return out
	}
	// A ranker that prefers long notes: it re-orders the fusion's
	// window, and must never bring in a note the filter drops.
	ranker := &memory.Ranker{Weights: map[string]float64{"length": 1, "overlap": 0.5}}
	search := func(q string, k int, mode amem.SearchMode, f amem.Filter, rk ...*memory.Ranker) []amem.Scored {
		t.Helper()
		req := amem.SearchRequest{Namespace: ns, Query: q, K: k, Mode: mode, Filter: f, LinksPerHit: -1}
		sctx := ctx
		if len(rk) > 0 {
			req.Profile = amem.ProfileConversation
			sctx = searchtune.With(ctx, searchtune.Tuning{Ranker: rk[0]})
		}
		res, err := mem.Search(sctx, req)
		if err != nil {
			t.Fatalf("%s search %q, k=%d, %+v: %v", mode, q, k, f, err)
		}
		out := make([]amem.Scored, len(res))
		for i, x := range res {
			if x.Kind != amem.Direct {
				t.Fatalf("%s search: a %s result without a curator", mode, x.Kind)
			}
			if !passes(byID[x.Note.ID], f) {
				t.Fatalf("%s search %q, k=%d, %+v: note %s fails the filter", mode, q, k, f, x.Note.ID)
			}
			out[i] = amem.Scored{ID: x.Note.ID, Score: x.Score}
		}
		return out
	}

	for range queries {
		q := randomWords(r, 1, 3)
		if r.IntN(6) == 0 {
			q += " zebra" // no note has it: the lexical ranking is shorter
		}
		qv, err := emb.Embed(ctx, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		f := randomFilter(r)
		var vecOracle, lexOracle []amem.Scored // the passing notes, best first
		for _, n := range notes {
			if passes(n, f) {
				vecOracle = append(vecOracle, amem.Scored{ID: n.ID, Score: cosine(qv[0], n.Embedding)})
			}
		}
		slices.SortFunc(vecOracle, func(a, b amem.Scored) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
		})
		for _, h := range unfiltered(q) {
			if passes(byID[h.ID], f) {
				lexOracle = append(lexOracle, h)
			}
		}
		where := fmt.Sprintf("query %q, filter %+v (%d notes pass)", q, f, len(vecOracle))
		// Where the approximate index answers: past a selective filter,
		// which is answered exactly.
		approx := approximateFrom > 0 && len(vecOracle)*20 >= len(notes)

		// The notes whose content is the query, which come first in
		// every mode, and every note's full-text share of the query.
		rq := ix.Resolve(q)
		exact := ix.SameContent(rq, func(id string) bool { return passes(byID[id], f) })
		share := func(id string) float64 { return rq.Share(ix.Score(rq, id)) }
		lexWant := exactFirstOracle(exact, lexOracle)

		vecAt := map[int][]amem.Scored{} // the vector ranking by depth
		for _, k := range []int{1, 4, 40} {
			got := search(q, k, amem.SearchLexical, f)
			if want := lexWant[:min(k, len(lexWant))]; !slices.Equal(scoredIDs(got), scoredIDs(want)) {
				t.Fatalf("%s, lexical, k=%d:\n got %v\nwant %v", where, k, got, want)
			}
			for _, g := range got {
				if want := rel.Lexical.Prob(0, share(g.ID)); math.Abs(g.Score-want) > 1e-9 {
					t.Fatalf("%s, lexical, k=%d: %s scored %v, its relevance is %v", where, k, g.ID, g.Score, want)
				}
			}

			depth := memory.FusionDepth
			vec, ok := vecAt[depth]
			if !ok {
				vec = search(q, depth, amem.SearchVector, f)
				if approx {
					h, w := recallOf(vec, vecOracle, depth)
					hits, wants = hits+h, wants+w
				} else if len(exact) == 0 {
					checkVectorRanking(t, fmt.Sprintf("%s, vector, k=%d", where, depth), vec, vecOracle, depth, rel.Vector)
				}
				vecAt[depth] = vec
			}
			// The approximate index's pool grows with k, so a smaller k
			// may rank otherwise; it is held to the recall instead.
			if got := search(q, k, amem.SearchVector, f); approx {
				h, w := recallOf(got, vecOracle, k)
				hits, wants = hits+h, wants+w
			} else if !slices.Equal(scoredIDs(got), scoredIDs(vec[:min(k, len(vec))])) {
				t.Fatalf("%s, vector, k=%d: %v is not the top of k=%d's %v", where, k, got, depth, vec)
			}
			// Hybrid, general profile: the notes within the depth of
			// either ranking, by relevance (the vector side as ranked
			// above, checked against the oracle).
			cos := map[string]float64{}
			for _, o := range vecOracle {
				cos[o.ID] = o.Score
			}
			cands := map[string]bool{}
			for _, h := range append(slices.Clone(vec), lexOracle[:min(depth, len(lexOracle))]...) {
				cands[h.ID] = true
			}
			got = search(q, k, amem.SearchHybrid, f)
			checkByRelevance(t, fmt.Sprintf("%s, hybrid, k=%d", where, k), got, k, exact, cands, func(id string) float64 {
				return rel.Hybrid.Prob(cos[id], share(id))
			})
			// The conversation profile with a ranker: k hits (as many as
			// the general profile gives), every one passing the filter
			// (search checks) and from fusion's window or the notes
			// whose content is the query.
			window := fuseOracle(memory.RankerWindow, lexWeight, vec, lexOracle[:min(depth, len(lexOracle))])
			ranked := search(q, k, amem.SearchHybrid, f, ranker)
			if len(ranked) != len(got) {
				t.Fatalf("%s, hybrid with a ranker, k=%d: %d hits, want %d", where, k, len(ranked), len(got))
			}
			for _, h := range ranked {
				if !slices.ContainsFunc(window, func(w amem.Scored) bool { return w.ID == h.ID }) && !slices.Contains(exact, h.ID) {
					t.Fatalf("%s, hybrid with a ranker, k=%d: %s is outside fusion's window %v", where, k, h.ID, window)
				}
			}
		}
	}
	t.Logf("approximate vector rankings: recall %d/%d", hits, wants)
	if wants > 0 && float64(hits) < 0.95*float64(wants) {
		t.Errorf("approximate vector rankings: recall %d/%d, want at least 0.95", hits, wants)
	}
}

// recallOf counts the results among got that are within the oracle's
// top k by cosine (ties either way), and how many there should be.
func recallOf(got, oracle []amem.Scored, k int) (hits, want int) {
	want = min(k, len(oracle))
	if want == 0 {
		return 0, 0
	}
	cos := make(map[string]float64, len(oracle))
	for _, o := range oracle {
		cos[o.ID] = o.Score
	}
	for _, g := range got {
		if c, ok := cos[g.ID]; ok && c >= oracle[want-1].Score-cosineSlack {
			hits++
		}
	}
	return hits, want
}

func scoredIDs(s []amem.Scored) []string {
	ids := make([]string, len(s))
	for i, x := range s {
		ids[i] = x.ID
	}
	return ids
}

// checkVectorRanking checks that got is the top min(k, len(oracle)) of the
// oracle's cosines, in order, up to cosineSlack.
func checkVectorRanking(t *testing.T, where string, got, oracle []amem.Scored, k int, curve memory.Logistic) {
	t.Helper()
	if len(got) != min(k, len(oracle)) {
		t.Fatalf("%s: %d results, want %d", where, len(got), min(k, len(oracle)))
	}
	cos := make(map[string]float64, len(oracle))
	for _, o := range oracle {
		cos[o.ID] = o.Score
	}
	in := map[string]bool{}
	for i, g := range got {
		c, ok := cos[g.ID]
		if !ok {
			t.Fatalf("%s: %s does not pass the filter", where, g.ID)
		}
		if want := curve.Prob(c, 0); math.Abs(want-g.Score) > relevanceSlack {
			t.Fatalf("%s: %s scored %v, the relevance of its cosine %v is %v", where, g.ID, g.Score, c, want)
		}
		if i > 0 && c > cos[got[i-1].ID]+cosineSlack {
			t.Fatalf("%s: %s (cosine %v) ranks below %s (%v)", where, g.ID, c, got[i-1].ID, cos[got[i-1].ID])
		}
		in[g.ID] = true
	}
	if len(got) == 0 {
		return
	}
	last := cos[got[len(got)-1].ID]
	for _, o := range oracle {
		if !in[o.ID] && o.Score > last+cosineSlack {
			t.Fatalf("%s: %s (cosine %v) is missing; the last result has %v", where, o.ID, o.Score, last)
		}
	}
}

// relevanceSlack is cosineSlack through the steepest relevance curve.
const relevanceSlack = 1e-4

// checkByRelevance checks hits against the general profile's rule: the
// notes whose content is the query first, then the candidates best
// first by relevance (rel), k of them or all; every score its relevance.
func checkByRelevance(t *testing.T, where string, got []amem.Scored, k int, exact []string, cands map[string]bool, rel func(id string) float64) {
	t.Helper()
	all := len(cands)
	for _, id := range exact {
		if !cands[id] {
			all++
		}
	}
	if len(got) != min(k, all) {
		t.Fatalf("%s: %d hits, want %d", where, len(got), min(k, all))
	}
	in := map[string]bool{}
	for i, g := range got {
		if i < len(exact) {
			if !slices.Contains(exact, g.ID) {
				t.Fatalf("%s: hit %d is %s; the notes whose content is the query are %v", where, i, g.ID, exact)
			}
		} else if !cands[g.ID] {
			t.Fatalf("%s: %s is no candidate", where, g.ID)
		}
		if want := rel(g.ID); math.Abs(want-g.Score) > relevanceSlack {
			t.Fatalf("%s: %s scored %v, its relevance is %v", where, g.ID, g.Score, want)
		}
		if i > len(exact) && g.Score > got[i-1].Score+relevanceSlack {
			t.Fatalf("%s: %s (%v) ranks below %s (%v)", where, g.ID, g.Score, got[i-1].ID, got[i-1].Score)
		}
		in[g.ID] = true
	}
	if len(got) <= len(exact) {
		return
	}
	last := got[len(got)-1].Score
	for id := range cands {
		if !in[id] && rel(id) > last+relevanceSlack {
			t.Fatalf("%s: %s (relevance %v) is missing; the last hit has %v", where, id, rel(id), last)
		}
	}
}

// exactFirstOracle moves the notes whose content is the query to the
// front of a ranking, in their order there.
func exactFirstOracle(exact []string, ranking []amem.Scored) []amem.Scored {
	var first, rest []amem.Scored
	for _, h := range ranking {
		if slices.Contains(exact, h.ID) {
			first = append(first, h)
		} else {
			rest = append(rest, h)
		}
	}
	return append(first, rest...)
}

// fuseOracle is weighted reciprocal rank fusion as documented on
// SearchHybrid, written out: vector rank i adds 1/(60+i), lexical rank j
// adds w/(60+j) (ranks from 1); best first, ties by ID.
func fuseOracle(k int, w float64, vec, lex []amem.Scored) []amem.Scored {
	score := map[string]float64{}
	for i, s := range vec {
		score[s.ID] += 1 / float64(60+i+1)
	}
	for i, s := range lex {
		score[s.ID] += w / float64(60+i+1)
	}
	out := []amem.Scored{}
	for _, id := range slices.Sorted(maps.Keys(score)) {
		out = append(out, amem.Scored{ID: id, Score: score[id]})
	}
	slices.SortStableFunc(out, func(a, b amem.Scored) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(k, len(out))]
}

// TestSearchLinkedNotesPassFilter: linked notes obey the filter in every
// mode, however the direct hits were ranked.
func TestSearchLinkedNotesPassFilter(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator())
	for i := range 12 {
		tag := []string{"even", "odd"}[i%2]
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("garden note %d about tomatoes", i), Tags: []string{tag}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchLexical, amem.SearchHybrid} {
		for _, f := range []amem.Filter{{}, {Tags: []string{"EVEN"}}} {
			res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "garden tomatoes", K: 2, Mode: mode, Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			linked := 0
			for _, x := range res {
				if x.Kind == amem.Linked {
					linked++
				}
				if len(f.Tags) > 0 && !slices.Contains(x.Note.Tags, "even") {
					t.Errorf("%s, %+v: %s note %q fails the filter (tags %v)", mode, f, x.Kind, x.Note.Content, x.Note.Tags)
				}
			}
			if linked == 0 {
				t.Errorf("%s, %+v: no linked notes; the test needs some", mode, f)
			}
		}
	}
}

// TestSearchFilterValidation: a filter of more than MaxFilterTerms tags
// and metadata pairs is refused, however they are split, and so are terms
// no note can have; tags are trimmed as stored tags are.
func TestSearchFilterValidation(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	n, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "a note", Tags: []string{"travel"}})
	if err != nil {
		t.Fatal(err)
	}
	tags := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("t", i)
		}
		return out
	}
	pairs := func(n int) map[string]string {
		out := map[string]string{}
		for i := range n {
			out[fmt.Sprint("k", i)] = "v"
		}
		return out
	}
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		f  amem.Filter
		ok bool
	}{
		{amem.Filter{Tags: tags(amem.MaxFilterTerms)}, true},
		{amem.Filter{Tags: tags(amem.MaxFilterTerms / 2), Metadata: pairs(amem.MaxFilterTerms / 2)}, true},
		{amem.Filter{Tags: tags(amem.MaxFilterTerms + 1)}, false},
		{amem.Filter{Metadata: pairs(amem.MaxFilterTerms + 1)}, false},
		{amem.Filter{Tags: tags(amem.MaxFilterTerms / 2), Metadata: pairs(amem.MaxFilterTerms/2 + 1)}, false},
		{amem.Filter{Tags: tags(935)}, false},
		{amem.Filter{Tags: []string{"travel", " "}}, false},
		{amem.Filter{Tags: []string{strings.Repeat("x", amem.MaxTermBytes+1)}}, false},
		{amem.Filter{Metadata: map[string]string{"": "v"}}, false},
		{amem.Filter{From: day, To: day}, false},
	} {
		for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchLexical, amem.SearchHybrid} {
			_, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "note", Mode: mode, Filter: tc.f})
			what := fmt.Sprintf("%s, %d tags %.20q, %d pairs, %v-%v", mode, len(tc.f.Tags), tc.f.Tags, len(tc.f.Metadata), tc.f.From, tc.f.To)
			if tc.ok && err != nil {
				t.Errorf("%s: %v", what, err)
			}
			if !tc.ok && !errors.Is(err, amem.ErrInvalid) {
				t.Errorf("%s: %v, want ErrInvalid", what, err)
			}
		}
	}
	for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchLexical, amem.SearchHybrid} {
		res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "note", Mode: mode, Filter: amem.Filter{Tags: []string{" Travel\t"}}})
		if err != nil || len(res) != 1 || res[0].Note.ID != n.ID {
			t.Errorf("%s, tag \" Travel\\t\": %v, %v; want the note", mode, res, err)
		}
	}
}
