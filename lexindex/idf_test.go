package lexindex

import (
	"math"
	"testing"
)

func TestQueryTermsAndHolds(t *testing.T) {
	ix := New()
	ix.Upsert("a", Fields{Content: "Caroline went running", Keywords: []string{"marathon"}})
	ix.Upsert("b", Fields{Content: "Melanie paints sunsets", Tags: []string{"art"}})
	ix.Upsert("c", Fields{Content: "Caroline paints too"})
	ix.Remove("c") // statistics are the live documents'

	got := ix.QueryTerms("Did Caroline run a marathon? Caroline! (zebra)")
	want := []QueryTerm{
		{Term: "carolin", IDF: math.Log(1 + (2-1+0.5)/(1+0.5))},
		{Term: "run", IDF: math.Log(1 + (2-1+0.5)/(1+0.5))},
		{Term: "marathon", IDF: math.Log(1 + (2-1+0.5)/(1+0.5))},
	}
	if len(got) != len(want) {
		t.Fatalf("QueryTerms: %v, want %v (distinct, indexed terms in query order)", got, want)
	}
	for i := range want {
		if got[i].Term != want[i].Term || math.Abs(got[i].IDF-want[i].IDF) > 1e-12 {
			t.Fatalf("QueryTerms[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// Holds reads every field of a live note; a removed note holds
	// nothing.
	for _, c := range []struct {
		id, term string
		want     bool
	}{
		{"a", "marathon", true}, {"a", "carolin", true}, {"a", "paint", false},
		{"b", "art", true}, {"b", "paint", true}, {"c", "paint", false}, {"x", "run", false}, {"a", "zebra", false},
	} {
		if got := ix.Holds(c.id, c.term); got != c.want {
			t.Errorf("Holds(%s, %s) = %v, want %v", c.id, c.term, got, c.want)
		}
	}
	if New().QueryTerms("anything") != nil {
		t.Error("an empty index has no query terms")
	}
}

func TestTokenizerIsTheIndexs(t *testing.T) {
	var tok Tokenizer
	var got []string
	tok.Each("Running CAFÉS, ran!", func(term []byte) { got = append(got, string(term)) })
	want := Terms("Running CAFÉS, ran!")
	if len(got) != len(want) {
		t.Fatalf("Tokenizer %v, Terms %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("Tokenizer %v, Terms %v", got, want)
		}
	}
}
