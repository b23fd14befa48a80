package conversation

import (
	"math"
	"slices"
	"testing"

	"github.com/amem-dev/amem/search"
)

func TestFuseWeighsRankings(t *testing.T) {
	vec := []search.Hit{{ID: "v1"}, {ID: "v2"}, {ID: "both"}}
	lex := []search.Hit{{ID: "l1"}, {ID: "l2"}, {ID: "both"}}

	// Plain RRF: the note in both lists first; equal ranks tie, broken by ID.
	got := search.IDs(FuseRRF(5, vec, lex))
	if want := []string{"both", "l1", "v1", "l2", "v2"}; !slices.Equal(got, want) {
		t.Fatalf("FuseRRF = %v, want %v", got, want)
	}
	// Weight 4 on the full-text list: its second note passes the vector
	// list's first.
	got = search.IDs(fuse(5, []float64{1, 4}, vec, lex))
	if want := []string{"both", "l1", "l2", "v1", "v2"}; !slices.Equal(got, want) {
		t.Fatalf("fuse 1:4 = %v, want %v", got, want)
	}
	s := fuse(2, []float64{1, 4}, vec, lex)[1].Score
	if want := 4.0 / 61; math.Abs(s-want) > 1e-12 {
		t.Fatalf("score of l1 %v, want %v", s, want)
	}
}
