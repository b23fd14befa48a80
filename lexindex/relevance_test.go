package lexindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Score is the score Search gives, for every note a search returns, and
// Share puts it on [0, 1].
func TestScoreIsSearchScore(t *testing.T) {
	ix := New()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alice rex dog walk vet portuguese budget review thursday lake cabin swim max golden retriever spring")
	for i := range 300 {
		n := 3 + rng.IntN(12)
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		ix.Upsert(fmt.Sprint(i), Fields{Content: b.String(), Keywords: []string{words[rng.IntN(len(words))]}})
	}
	for _, query := range []string{"alice dog", "golden retriever named max", "max max lake", "xyzzy", "budget xyzzy review", ""} {
		q := ix.Resolve(query)
		for _, h := range ix.Exhaustive(query, 300, nil) {
			if got := ix.Score(q, h.ID); math.Abs(got-h.Score) > 1e-9 {
				t.Fatalf("%q: Score(%s) = %v, Search's %v", query, h.ID, got, h.Score)
			}
			if s := q.Share(h.Score); s <= 0 || s > 1 {
				t.Fatalf("%q: share %v of %v (self %v)", query, s, h.Score, q.Self())
			}
		}
		if got := ix.Score(q, "no such note"); got != 0 {
			t.Fatalf("a note not indexed scores %v", got)
		}
	}
	// A term no note holds weighs as a term of one note would: the
	// query's known half can match only its own share.
	q := ix.Resolve("alice xyzzy")
	alone := ix.Resolve("alice")
	rare := math.Log(1 + (300-1+0.5)/1.5)
	if math.Abs(q.Self()-alone.Self()-rare) > 1e-9 {
		t.Fatalf("self of a query half unknown %v, of its known half %v", q.Self(), alone.Self())
	}
}

func TestSameContent(t *testing.T) {
	ix := New()
	ix.Upsert("max", Fields{Content: "I adopted a golden retriever named Max last spring.", Context: "About Max and swimming", Keywords: []string{"swimming"}})
	ix.Upsert("copy", Fields{Content: "i ADOPTED a golden-retriever named max, last spring!"})
	ix.Upsert("swim", Fields{Content: "Max loves swimming in the lake near our cabin.", Keywords: []string{"golden retriever"}})
	ix.Upsert("longer", Fields{Content: "I adopted a golden retriever named Max last spring and a cat."})
	ix.Upsert("shorter", Fields{Content: "I adopted a golden retriever named Max."})
	ix.Upsert("other words", Fields{Content: "I adopted a golden retriever named Rex last spring."})
	ix.Upsert("gone", Fields{Content: "I adopted a golden retriever named Max last spring."})
	ix.Remove("gone")
	q := ix.Resolve("I adopted a golden retriever named Max last spring.")
	if got := ix.SameContent(q, nil); !slices.Equal(got, []string{"max", "copy"}) {
		t.Fatalf("same content %v; want max and copy", got)
	}
	if got := ix.SameContent(q, func(id string) bool { return id != "max" }); !slices.Equal(got, []string{"copy"}) {
		t.Fatalf("same content, max not allowed: %v", got)
	}
	for _, query := range []string{"", "golden retriever", "swimming", "I adopted a golden retriever named Max last spring xyzzy"} {
		if got := ix.SameContent(ix.Resolve(query), nil); len(got) != 0 {
			t.Fatalf("%q: same content %v; want none", query, got)
		}
	}
	// Content words in another field don't make the content the query.
	if got := ix.SameContent(ix.Resolve("Max loves swimming in the lake near our cabin golden retriever"), nil); len(got) != 0 {
		t.Fatalf("keywords counted as content: %v", got)
	}
	// Past 64 distinct terms, every term still counts.
	var long []string
	for i := range 100 {
		long = append(long, fmt.Sprintf("w%d", i))
	}
	ix.Upsert("long", Fields{Content: strings.Join(long, " ")})
	ix.Upsert("long but one", Fields{Content: strings.Join(long[:99], " ") + " w0"})
	if got := ix.SameContent(ix.Resolve(strings.Join(long, " ")), nil); !slices.Equal(got, []string{"long"}) {
		t.Fatalf("a 100-term content: %v", got)
	}
}

// Trait counts follow upserts, removals, compactions and a save.
func TestWithTraits(t *testing.T) {
	ix := New()
	for i := range 200 {
		ix.Upsert(fmt.Sprint(i), Fields{Content: "turn", Traits: uint8(i % 4)})
	}
	for i := range 120 {
		ix.Remove(fmt.Sprint(i)) // compacts on the way
	}
	ix.Upsert("150", Fields{Content: "now without traits"})
	want := func(ix *Index) {
		t.Helper()
		// 120..199 left: 20 of each i%4, and 150 (i%4 == 2) lost its.
		if got := [4]int{ix.WithTraits(0), ix.WithTraits(1), ix.WithTraits(2), ix.WithTraits(3)}; got != [4]int{80, 40, 39, 20} {
			t.Fatalf("with traits 0, 1, 2, 3: %v", got)
		}
	}
	want(ix)
	var buf strings.Builder
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	want(back)
}
