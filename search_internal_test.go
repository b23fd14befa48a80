package amem

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestFuseWeighsRankings(t *testing.T) {
	vec := []Scored{{ID: "v1"}, {ID: "v2"}, {ID: "both"}}
	lex := []Scored{{ID: "l1"}, {ID: "l2"}, {ID: "both"}}

	// Plain RRF: the note in both lists first; equal ranks tie, broken by ID.
	got := scoredIDs(FuseRRF(5, vec, lex))
	if want := []string{"both", "l1", "v1", "l2", "v2"}; !slices.Equal(got, want) {
		t.Fatalf("FuseRRF = %v, want %v", got, want)
	}
	// Weight 4 on the full-text list: its second note passes the vector
	// list's first.
	got = scoredIDs(fuse(5, []float64{1, 4}, vec, lex))
	if want := []string{"both", "l1", "l2", "v1", "v2"}; !slices.Equal(got, want) {
		t.Fatalf("fuse 1:4 = %v, want %v", got, want)
	}
	s := fuse(2, []float64{1, 4}, vec, lex)[1].Score
	if want := 4.0 / 61; math.Abs(s-want) > 1e-12 {
		t.Fatalf("score of l1 %v, want %v", s, want)
	}
}

// A one-note batch's error loses its index, not what wraps it: a store's
// health verdict around it stays findable.
func TestUnwrapBatchKeepsHealth(t *testing.T) {
	cause := errors.New("connection reset")
	got := unwrapBatch(&HealthError{Reason: "database unreachable", Err: &batchError{index: 0, err: cause}})
	var he *HealthError
	if !errors.As(got, &he) || !errors.Is(got, cause) || got.Error() != "database unreachable: connection reset" {
		t.Fatalf("unwrapBatch = %v (%T)", got, got)
	}
	if got := unwrapBatch(&batchError{index: 0, err: cause}); got != cause {
		t.Fatalf("a bare batch error: %v", got)
	}
}
