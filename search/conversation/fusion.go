package conversation

import (
	"slices"
	"strings"

	"github.com/amem-dev/amem/search"
)

// rrfK is the usual reciprocal-rank-fusion constant; it damps the weight
// of the top ranks so neither list dominates.
const rrfK = 60

// FuseRRF merges rankings by reciprocal rank fusion: score(d) = sum over
// rankings of 1/(60 + rank). Ties break by ID for determinism.
func FuseRRF(k int, rankings ...[]search.Hit) []search.Hit {
	return fuse(k, nil, rankings...)
}

// fuse is weighted reciprocal rank fusion: ranking i adds
// weights[i]/(60 + rank); nil weights are all 1.
func fuse(k int, weights []float64, rankings ...[]search.Hit) []search.Hit {
	n := 0
	for _, ranking := range rankings {
		n += len(ranking)
	}
	score := make(map[string]float64, n) // sized: growing it was half of fuse's time
	for r, ranking := range rankings {
		w := 1.0
		if weights != nil {
			w = weights[r]
		}
		for i, s := range ranking {
			score[s.ID] += w / float64(rrfK+i+1)
		}
	}
	out := make([]search.Hit, 0, len(score))
	for id, s := range score {
		out = append(out, search.Hit{ID: id, Score: s})
	}
	slices.SortFunc(out, func(a, b search.Hit) int {
		if c := search.CompareScores(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}
