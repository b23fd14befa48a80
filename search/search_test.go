package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fakeNamespace is a namespace of notes with made-up cosines and shares
// for one query: the rankings are exact orders of them.
type fakeNamespace struct {
	cos, share map[string]float64
	exact      []string
	turns      int
	reads      int // notes measured through Cosines and Shares
}

func (f *fakeNamespace) ranking(score map[string]float64, k int) []Hit {
	var out []Hit
	for id, s := range score {
		if s > 0 {
			out = append(out, Hit{ID: id, Score: s})
		}
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if c := CompareScores(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(k, len(out))]
}

func (f *fakeNamespace) Vectors(q []float32, k int) ([]Hit, error) { return f.ranking(f.cos, k), nil }
func (f *fakeNamespace) Text(q string, k int) []Hit                { return f.ranking(f.share, k) }
func (f *fakeNamespace) Cosines(q []float32, ids []string) ([]float64, error) {
	f.reads += len(ids)
	out := make([]float64, len(ids))
	for i, id := range ids {
		out[i] = f.cos[id]
	}
	return out, nil
}

func (f *fakeNamespace) Shares(q string, ids []string) []float64 {
	f.reads += len(ids)
	out := make([]float64, len(ids))
	for i, id := range ids {
		out[i] = f.share[id]
	}
	return out
}
func (f *fakeNamespace) SameContent(q string) []string { return f.exact }
func (f *fakeNamespace) Turns() (int, int)             { return f.turns, len(f.cos) }

func embedded() ([]float32, error) { return []float32{1}, nil }

// randomNamespace has n notes, a fifth with no full-text match at all.
func randomNamespace(r *rand.Rand, n int) *fakeNamespace {
	f := &fakeNamespace{cos: map[string]float64{}, share: map[string]float64{}}
	for i := range n {
		id := fmt.Sprintf("n%04d", i)
		f.cos[id] = r.Float64()
		if r.IntN(5) > 0 {
			f.share[id] = r.Float64()
		}
	}
	return f
}

func ids(hs []Hit) []string { return IDs(hs) }

// The first n hits of a search are the first n of any search for more, in
// every mode and profile, past the first tier too; every score is the
// mode's relevance, and MinScore drops exactly the hits below it.
func TestDirectHitsDoNotDependOnK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ns := randomNamespace(r, 900)
	ns.exact = []string{"n0777"}
	reverse := func(ctx context.Context, vec, lex []Hit) ([]string, error) {
		var out []string
		for _, h := range slices.Concat(lex, vec) {
			if !slices.Contains(out, h.ID) {
				out = append(out, h.ID)
			}
		}
		return out, nil
	}
	rel := DefaultRelevance
	for _, c := range []struct {
		mode    Mode
		profile Profile
	}{{Vector, ProfileAuto}, {Lexical, ProfileAuto}, {Hybrid, ProfileGeneral}, {Hybrid, ProfileConversation}} {
		cfg := Config{Relevance: &rel, Conversation: reverse}
		var longest []Hit
		for _, k := range []int{900, 300, 201, 200, 60, 50, 10, 1} {
			got, err := Direct(context.Background(), ns, embedded, Query{Text: "q", K: k, Mode: c.mode, Profile: c.profile}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || got[0].ID != "n0777" {
				t.Fatalf("%s %s, k=%d: first %v, want the note whose content is the query", c.mode, c.profile, k, got[:min(3, len(got))])
			}
			if longest == nil {
				longest = got
				continue
			}
			if !slices.Equal(ids(got), ids(longest[:min(k, len(longest))])) {
				t.Fatalf("%s %s: k=%d is not the first %d of k=900", c.mode, c.profile, k, k)
			}
		}
		for _, h := range longest {
			var want float64
			switch c.mode {
			case Vector:
				want = rel.Vector.Prob(ns.cos[h.ID], 0)
			case Lexical:
				want = rel.Lexical.Prob(0, ns.share[h.ID])
			default:
				want = rel.Hybrid.Prob(ns.cos[h.ID], ns.share[h.ID])
			}
			if h.Score != want {
				t.Fatalf("%s: %s scored %v, its relevance is %v", c.mode, h.ID, h.Score, want)
			}
		}
		floor := longest[len(longest)/3].Score
		above, err := Direct(context.Background(), ns, embedded, Query{Text: "q", K: 900, Mode: c.mode, Profile: c.profile, MinScore: floor}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, h := range longest {
			if h.Score >= floor {
				want = append(want, h.ID)
			}
		}
		if !slices.Equal(ids(above), want) {
			t.Fatalf("%s %s: min score %v gives %d hits, want the %d at or above it", c.mode, c.profile, floor, len(above), len(want))
		}
	}
}

// The general profile orders the notes within Depth of either ranking by
// relevance; a note found by neither, however relevant, waits for a
// deeper tier.
func TestGeneralOrderAndTiers(t *testing.T) {
	ns := &fakeNamespace{cos: map[string]float64{}, share: map[string]float64{}}
	for i := range 120 {
		id := fmt.Sprintf("v%03d", i)
		ns.cos[id] = 0.9 - float64(i)*0.005 // the vector ranking
	}
	for i := range 120 {
		id := fmt.Sprintf("l%03d", i)
		ns.share[id] = 0.9 - float64(i)*0.005 // the full-text ranking
	}
	ns.cos["both"], ns.share["both"] = 0.4, 0.4 // 60th-ish in neither
	rel := DefaultRelevance
	got, err := Direct(context.Background(), ns, embedded, Query{Text: "q", K: 200, Mode: Hybrid, Profile: ProfileAuto}, Config{Relevance: &rel})
	if err != nil {
		t.Fatal(err)
	}
	at := slices.Index(ids(got), "both")
	if at < 100 {
		t.Fatalf("a note outside the first depth of both rankings at %d, within the first tier", at)
	}
	first := got[:100]
	for i := 1; i < len(first); i++ {
		if first[i].Score > first[i-1].Score {
			t.Fatalf("the first tier is not by relevance at %d: %v after %v", i, first[i], first[i-1])
		}
	}
	// The vector side weighs more: the general order puts the vector
	// ranking's first note before the full-text one's.
	if got[0].ID != "v000" {
		t.Fatalf("first %s, want v000 (cosine weighs 0.7)", got[0].ID)
	}
}

// The conversation profile's Order is asked only when the profile is
// conversation, chosen or found; it never measures what it orders past
// the hits read.
func TestConversationOrderOnlyWhereChosen(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ns := randomNamespace(r, 200)
	asked := 0
	order := func(ctx context.Context, vec, lex []Hit) ([]string, error) {
		asked++
		return IDs(vec), nil
	}
	rel := DefaultRelevance
	search := func(p Profile) {
		t.Helper()
		if _, err := Direct(context.Background(), ns, embedded, Query{Text: "q", K: 5, Mode: Hybrid, Profile: p}, Config{Relevance: &rel, Conversation: order}); err != nil {
			t.Fatal(err)
		}
	}
	search(ProfileAuto) // no turns: general
	search(ProfileGeneral)
	if asked != 0 {
		t.Fatalf("asked %d times in the general profile", asked)
	}
	ns.reads = 0
	search(ProfileConversation)
	if asked != 1 || ns.reads > 2*16 {
		t.Fatalf("conversation profile: asked %d times, %d notes measured (want at most one step of 16, twice)", asked, ns.reads)
	}
	ns.turns = 150
	search(ProfileAuto)
	if asked != 2 {
		t.Fatalf("auto with 150 turns of 200: asked %d times", asked)
	}
	failing := func(ctx context.Context, vec, lex []Hit) ([]string, error) { return nil, errors.New("boom") }
	if _, err := Direct(context.Background(), ns, embedded, Query{Text: "q", K: 5, Mode: Hybrid, Profile: ProfileAuto}, Config{Relevance: &rel, Conversation: failing}); err == nil {
		t.Fatal("an Order's error was lost")
	}
}

func TestChooseProfile(t *testing.T) {
	for _, c := range []struct {
		want         Profile
		turns, notes int
		got          Profile
		auto         bool
	}{
		{ProfileAuto, 0, 0, ProfileGeneral, true},
		{ProfileAuto, 1, 1, ProfileGeneral, true}, // one turn is no conversation
		{ProfileAuto, 2, 4, ProfileConversation, true},
		{ProfileAuto, 2, 5, ProfileGeneral, true},
		{ProfileGeneral, 9, 9, ProfileGeneral, false},
		{ProfileConversation, 0, 9, ProfileConversation, false},
	} {
		p := ChooseProfile(c.want, c.turns, c.notes)
		if p.Profile != c.got || p.Auto != c.auto || p.Reason() == "" {
			t.Errorf("ChooseProfile(%s, %d, %d) = %+v", c.want, c.turns, c.notes, p)
		}
	}
	if p, err := ValidProfile(""); err != nil || p != ProfileAuto {
		t.Fatalf(`ValidProfile("") = %v, %v`, p, err)
	}
	if _, err := ValidProfile("chat"); err == nil {
		t.Fatal("profile chat accepted")
	}
}

// Expand follows the documented policy: per hit and in all, no note twice,
// the filter obeyed, a gone hit left out, linked notes after or
// interleaved.
func TestExpand(t *testing.T) {
	links := map[string][]Link{
		"a": {{"x", 0.9}, {"b", 0.8}, {"y", 0.7}, {"z", 0.6}},
		"b": {{"x", 0.9}, {"w", 0.5}},
		"c": {{"v", 0.4}},
	}
	get := func(id string) ([]Link, bool) {
		if id == "gone" {
			return nil, false
		}
		return links[id], true
	}
	hits := []Hit{{ID: "a", Score: 0.9}, {ID: "gone", Score: 0.8}, {ID: "b", Score: 0.7}, {ID: "c", Score: 0.6}}
	show := func(es []Entry) string {
		var parts []string
		for _, e := range es {
			if e.Via == "" {
				parts = append(parts, e.ID)
			} else {
				parts = append(parts, e.ID+"<"+e.Via)
			}
		}
		return strings.Join(parts, " ")
	}
	for _, c := range []struct {
		x    Expansion
		want string
	}{
		{Expansion{PerHit: 2, Budget: 10, Order: LinksAfter}, "a b c x<a y<a w<b v<c"},
		{Expansion{PerHit: 2, Budget: 10, Order: LinksInterleaved}, "a x<a y<a b w<b c v<c"},
		{Expansion{PerHit: 3, Budget: 2, Order: LinksAfter}, "a b c x<a y<a"},
		{Expansion{PerHit: 2, Budget: 10, Order: LinksAfter, Allow: func(id string) bool { return id != "x" }}, "a b c y<a z<a w<b v<c"},
		{Expansion{PerHit: 0, Budget: 10}, "a b c"},
		{Expansion{PerHit: 3, Budget: -1}, "a b c"},
	} {
		if got := show(c.x.Expand(hits, get)); got != c.want {
			t.Errorf("%+v: %s, want %s", c.x, got, c.want)
		}
	}
}

// Candidates are the first tier, measured, in the general order, with
// their places in both rankings.
func TestCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ns := randomNamespace(r, 300)
	ns.exact = []string{"n0299"}
	rel := DefaultRelevance
	cands, err := Candidates(context.Background(), ns, embedded, "q", &rel)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) < Depth || len(cands) > 2*Depth+1 || !cands[0].Exact || cands[0].ID != "n0299" {
		t.Fatalf("%d candidates, first %+v", len(cands), cands[0])
	}
	for _, c := range cands[1:] {
		if c.Cosine != ns.cos[c.ID] || c.Share != ns.share[c.ID] || c.VectorRank == 0 && c.LexicalRank == 0 {
			t.Fatalf("candidate %+v: cosine %v, share %v", c, ns.cos[c.ID], ns.share[c.ID])
		}
	}
}
