package lexindex

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// naiveWhere is where f holds term, from its fields' terms alone.
func naiveWhere(f Fields, term string) Where {
	in := func(texts ...string) bool {
		for _, s := range texts {
			if slices.Contains(Terms(s), term) {
				return true
			}
		}
		return false
	}
	all := append(append([]string{f.Content, f.Context}, f.Keywords...), f.Tags...)
	if !in(all...) {
		return 0
	}
	w := Held
	if in(f.Content) {
		w |= InContent
	}
	if in(f.Keywords...) {
		w |= InKeywords
	}
	if in(f.Names...) {
		w |= InNames
	}
	if in(f.Speaker) {
		w |= InSpeaker
	}
	return w
}

// sameMarks checks Where and TermsOf against every live document's fields,
// for a query of a few of its words and others.
func sameMarks(t *testing.T, ix *Index, docs map[string]Fields, c *corpus) {
	t.Helper()
	for id, f := range docs {
		q := f.Content + " " + c.words(3)
		if len(f.Names) > 0 {
			q += " " + f.Names[0]
		}
		if len(f.Keywords) > 0 {
			q += " " + f.Keywords[0]
		}
		terms := ix.QueryTerms(q)
		got := make([]Where, len(terms))
		info, ok := ix.Where(id, terms, got)
		if want := (DocInfo{f.Traits, len(Terms(f.Content))}); !ok || info != want {
			t.Fatalf("%s: Where ok %v, %+v, want %+v", id, ok, info, want)
		}
		for i, qt := range terms {
			if want := naiveWhere(f, qt.Term); got[i] != want {
				t.Fatalf("%s %q: Where %04b, want %04b (fields %+v)", id, qt.Term, got[i], want, f)
			}
		}
		var kw []string
		for _, qt := range ix.TermsOf(nil, id, InKeywords) {
			kw = append(kw, qt.Term)
		}
		var want []string
		for _, k := range f.Keywords {
			want = append(want, Terms(k)...)
		}
		slices.Sort(want)
		want = slices.Compact(want)
		slices.Sort(kw)
		if len(want) > maxQueryTerms {
			want = nil // TermsOf keeps the first 64 by term ID; not checked
			kw = nil
		}
		if !slices.Equal(kw, want) {
			t.Fatalf("%s: TermsOf keywords %v, want %v", id, kw, want)
		}
	}
}

func TestWhere(t *testing.T) {
	ix := New()
	ix.Upsert("a", Fields{Content: "Caroline: we went running in Boston", Keywords: []string{"marathon", "running"},
		Names: []string{"Boston", "Denver"}, Speaker: "Caroline", Traits: 7})
	ix.Upsert("b", Fields{Content: "Melanie paints sunsets", Context: "Boston art", Tags: []string{"art"}, Traits: 9})
	terms := ix.QueryTerms("did Caroline run a marathon in Boston or Denver, art?")
	var names []string
	for _, qt := range terms {
		names = append(names, qt.Term)
	}
	if want := []string{"carolin", "run", "marathon", "in", "boston", "art"}; !slices.Equal(names, want) {
		t.Fatalf("terms %v, want %v", names, want)
	}
	got := make([]Where, len(terms))
	if info, ok := ix.Where("a", terms, got); !ok || info != (DocInfo{7, 6}) {
		t.Fatalf("a: %+v %v", info, ok)
	}
	const c, k, n, s, h = InContent, InKeywords, InNames, InSpeaker, Held
	// "Denver" is a name the content does not hold: not marked, not held.
	if want := []Where{h | c | s, h | c | k, h | k, h | c, h | c | n, 0}; !slices.Equal(got, want) {
		t.Errorf("a: %v, want %v", got, want)
	}
	if info, ok := ix.Where("b", terms, got); !ok || info != (DocInfo{9, 3}) {
		t.Fatalf("b: %+v %v", info, ok)
	}
	if want := []Where{0, 0, 0, 0, h, h}; !slices.Equal(got, want) {
		t.Errorf("b: %v, want %v (context and tags are held, unmarked)", got, want)
	}
	if _, ok := ix.Where("x", terms, got); ok || slices.ContainsFunc(got, func(w Where) bool { return w != 0 }) {
		t.Errorf("an unknown note: %v %v", ok, got)
	}
	// The marks survive a compaction's renumbering of terms and docs.
	ix.Upsert("c", Fields{Content: "aardvark"})
	ix.Remove("c")
	ix.Compact()
	terms = ix.QueryTerms("Caroline marathon Boston")
	got = got[:len(terms)]
	if info, _ := ix.Where("a", terms, got); info != (DocInfo{7, 6}) || !slices.Equal(got, []Where{h | c | s, h | k, h | c | n}) {
		t.Errorf("after Compact: %+v %v", info, got)
	}
}

func TestTermsAllHeld(t *testing.T) {
	ix := New()
	ix.Upsert("a", Fields{Content: "Mary Ann went home"})
	for _, c := range []struct {
		text string
		n    int
		all  bool
	}{{"Mary Ann", 2, true}, {"Mary Lou", 1, false}, {"!!", 0, false}, {"mary mary", 1, true}} {
		got, all := ix.Terms(c.text)
		if len(got) != c.n || all != c.all {
			t.Errorf("Terms(%q) = %v, %v; want %d terms, %v", c.text, got, all, c.n, c.all)
		}
	}
}

// SearchTerms with the terms QueryTerms resolves is Search.
func TestSearchTermsIsSearch(t *testing.T) {
	c := newCorpus(3, 400)
	ix := New()
	for i := range 300 {
		ix.Upsert(fmt.Sprint(i), c.fields())
	}
	for range 50 {
		q := c.question()
		want := ix.Search(q, 10, nil)
		got := ix.SearchTerms(ix.QueryTerms(q), 10, nil)
		if len(want) == 0 {
			if got != nil {
				t.Fatalf("%q: %v, want none", q, got)
			}
			continue
		}
		sameHits(t, q, got, want)
	}
	// A note's keywords as the query: the notes holding them rank.
	terms := ix.TermsOf(nil, "7", InKeywords|InContent)
	hits := ix.SearchTerms(terms, 300, nil)
	if !slices.ContainsFunc(hits, func(h Hit) bool { return h.ID == "7" }) || math.IsNaN(hits[0].Score) {
		t.Errorf("note 7's own terms do not find it: %v", hits)
	}
}
