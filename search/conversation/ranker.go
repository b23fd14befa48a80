package conversation

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/amem-dev/amem/internal/invalid"
	"github.com/amem-dev/amem/search"
)

// Ranker is a learned re-ranking of the profile's candidates: after the
// fusion, the first Window candidates are ordered by a linear score, the
// sum over features of weight × value. Features are named by
// RankFeatureNames; a feature without a weight counts 0. Weights come
// from training on labelled searches (package eval's RankNet over
// memory.Memory.RankFeatures); package local ships weights trained on
// LoCoMo's development split.
//
// A Ranker is read, never written, by searches: safe for concurrent use
// as long as nobody changes it.
type Ranker struct {
	// Weights maps a feature name to its weight.
	Weights map[string]float64 `json:"weights"`
	// About says where the weights came from (data, training, date).
	About string `json:"about,omitempty"`
}

// Validate reports a weight of a feature RankFeatureNames does not list,
// or a weight that is not a finite number, as amem.ErrInvalid.
func (r *Ranker) Validate() error {
	if r == nil {
		return invalid.Errorf("ranker is nil")
	}
	for name, w := range r.Weights {
		if featureIndex(name) < 0 {
			return invalid.Errorf("ranker weight for unknown feature %q; the features are %s", name, strings.Join(RankFeatureNames(), ", "))
		}
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return invalid.Errorf("ranker weight %v for %s; it must be a finite number", w, name)
		}
	}
	return nil
}

// vector is the weights in RankFeatureNames order.
func (r *Ranker) vector() []float64 {
	v := make([]float64, len(rankFeatures))
	for name, w := range r.Weights {
		if i := featureIndex(name); i >= 0 {
			v[i] = w
		}
	}
	return v
}

// rankingNames name the profile's rankings, in the order Order fuses
// them: the vector and full-text rankings, then the extra rankings of
// rankings.go.
var rankingNames = []string{"vector", "lexical", "reply", "feedback", "dense"}

// Feature names that are not per ranking; see noteFeatures for what each
// measures.
const (
	featFused    = "fused"
	featOverlap  = "overlap"
	featKeywords = "keywords"
	featContext  = "all-fields"
	featNames    = "names"
	featSpeaker  = "speaker"
	featLength   = "length"
	featWhenTime = "when-time"
	featWhoName  = "who-name"
	featWhereAt  = "where-place"
	featHowMany  = "howmany-number"
	featWhy      = "why-because"
)

// rankFeatures is every feature name, in vector order.
var rankFeatures = func() []string {
	out := []string{featFused}
	for _, r := range rankingNames {
		out = append(out, "rrf:"+r, "first:"+r, "score:"+r)
	}
	return append(out, featOverlap, featKeywords, featContext, featNames, featSpeaker, featLength,
		featWhenTime, featWhoName, featWhereAt, featHowMany, featWhy)
}()

// RankFeatureNames lists the features a Ranker may weigh, in the order of
// RankCandidate.Features.
func RankFeatureNames() []string { return slices.Clone(rankFeatures) }

func featureIndex(name string) int { return slices.Index(rankFeatures, name) }

// Window is how many of the fusion's first candidates the ranker orders,
// for any k (so that the first hits do not depend on k): twice the depth
// each ranking is read to. On LoCoMo's development split (k = 10,
// cross-validated recall@10 over categories 1-4, rankers trained and
// scored on the first n of each window, 2026-12-04): 0.723 for 20, 0.735
// for 50, 0.776 for 70, 0.789 for 100. Past 100 the rankings, each read
// to 50, seldom add a candidate.
const Window = 2 * search.Depth

// RankCandidate is one candidate of the ranker's window.
type RankCandidate struct {
	ID string
	// Fused is the candidate's fused score, by which the window is
	// ordered before the ranker.
	Fused float64
	// Features are its values, in RankFeatureNames order.
	Features []float64
}

// String names the ranker for logs: its weights in a stable order.
func (r *Ranker) String() string {
	if r == nil {
		return "no ranker"
	}
	names := make([]string, 0, len(r.Weights))
	for n := range r.Weights {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%.4g", n, r.Weights[n])
	}
	return strings.Join(parts, " ")
}
