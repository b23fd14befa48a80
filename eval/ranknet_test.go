package eval

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// separable makes questions whose evidence has a higher feature 1 than
// every other candidate, hidden under noise in feature 0 and a constant
// feature 2 that must get no weight.
func separable(seed uint64, n int) []rankQuery {
	r := rand.New(rand.NewPCG(seed, 1))
	qs := make([]rankQuery, n)
	for i := range qs {
		for c := range 20 {
			rel := c == r.IntN(20) || c == 0
			x := r.Float64()
			if rel {
				x += 1.5
			}
			qs[i].feats = append(qs[i].feats, []float64{r.NormFloat64() * 3, x, 7})
			qs[i].rel = append(qs[i].rel, rel)
		}
	}
	return qs
}

func TestRankNetLearnsASeparableCase(t *testing.T) {
	train, test := separable(1, 200), separable(2, 200)
	w := trainRankNet(train, 3, nil, rankNetOptions{})
	if w[1] <= 0 || w[2] != 0 {
		t.Fatalf("weights %v: want feature 1 positive, the constant feature 2 at 0", w)
	}
	if before, after := pairAccuracy(test, []float64{1, 0, 0}), pairAccuracy(test, w); after < 0.99 || after <= before {
		t.Fatalf("held-out pairs ordered right: %.3f with the noise feature alone, %.3f trained; want at least 0.99", before, after)
	}
	// Leaving feature 1 out leaves nothing to learn from.
	if w := trainRankNet(train, 3, []bool{true, false, true}, rankNetOptions{}); w[1] != 0 || pairAccuracy(test, w) > 0.6 {
		t.Fatalf("without feature 1: weights %v, accuracy %.3f", w, pairAccuracy(test, w))
	}
}

func TestRankNetIsDeterministic(t *testing.T) {
	qs := separable(3, 50)
	a := trainRankNet(qs, 3, nil, rankNetOptions{Iterations: 40})
	b := trainRankNet(qs, 3, nil, rankNetOptions{Iterations: 40})
	if !slices.Equal(a, b) {
		t.Fatalf("two fits of the same data: %v and %v", a, b)
	}
	if w := trainRankNet(nil, 3, nil, rankNetOptions{}); !slices.Equal(w, []float64{0, 0, 0}) {
		t.Fatalf("no data: %v, want zero weights", w)
	}
}

// fitRanker chooses its penalty on the training conversations alone: a
// conversation it does not keep never changes the fit.
func TestFitRankerUsesOnlyItsConversations(t *testing.T) {
	mk := func(conv string, seed uint64) []rankSample {
		var out []rankSample
		for _, q := range separable(seed, 30) {
			s := rankSample{conv: conv, rq: q, training: true}
			for i, rel := range q.rel {
				id := conv + "-" + string(rune('a'+i))
				s.diaIDs = append(s.diaIDs, id)
				if rel {
					s.q.Evidence = append(s.q.Evidence, id)
				}
			}
			out = append(out, s)
		}
		return out
	}
	a, b := mk("a", 4), mk("b", 5)
	keep := func(c string) bool { return c != "held" }
	w1, l1 := fitRanker(append(slices.Clone(a), b...), keep, nil, 3, 10)
	w2, l2 := fitRanker(append(append(slices.Clone(a), b...), mk("held", 6)...), keep, nil, 3, 10)
	if !slices.Equal(w1, w2) || l1 != l2 || !slices.Contains(l2Grid, l1) {
		t.Fatalf("a held-out conversation changed the fit: %v (L2 %v) and %v (L2 %v)", w1, l1, w2, l2)
	}
}
