package search

import (
	"math"

	"github.com/amem-dev/amem/internal/invalid"
)

// A direct hit's Score is its relevance: an estimate, in [0, 1], of the
// probability that the note is relevant to the query, from what the
// search measured of it. Vector search measures meaning, the cosine of
// the note's embedding to the query's; full-text search measures words,
// the note's BM25 as a share of the query (lexindex.Query.Share: 1 for
// a note of average length holding each query term as often as the
// query, 0 for none of them); hybrid search measures both. Each mode
// maps what it measured through a logistic curve (Relevance) fitted to
// whether hits were relevant on the tuning halves of the evaluation
// sets (package eval's suite), so that one number means about the same
// in every mode, and a client can drop weak hits (Query.MinScore).

// Logistic is a relevance curve: the probability that a hit is relevant
// is 1/(1+exp(-(Bias + Cosine*cosine + Words*share))).
type Logistic struct {
	Bias   float64 `json:"bias"`
	Cosine float64 `json:"cosine"`
	Words  float64 `json:"words"`
}

// Relevance holds a curve per search mode: Vector reads only the cosine,
// Lexical only the share, Hybrid both.
type Relevance struct {
	Vector  Logistic `json:"vector"`
	Lexical Logistic `json:"lexical"`
	Hybrid  Logistic `json:"hybrid"`
	// MinScore is the floor measured for these curves: the MCP search
	// tool applies it unless the caller names one. 0 for curves not
	// calibrated for the embedder, whose scores say too little to drop
	// hits by.
	MinScore float64 `json:"min_score,omitempty"`
	// About says where the curves came from.
	About string `json:"about,omitempty"`
}

// linear is the curve's argument: hybrid search's general profile orders
// notes by it, which is the order of the probability.
func (l Logistic) linear(cos, share float64) float64 {
	return l.Bias + l.Cosine*cos + l.Words*share
}

// Prob is the probability the curve gives a hit of this cosine and
// share.
func (l Logistic) Prob(cos, share float64) float64 {
	return 1 / (1 + math.Exp(-l.linear(cos, share)))
}

// Validate reports a curve that is not finite or that falls as the
// cosine or the share rises, as ErrInvalid.
func (r *Relevance) Validate() error {
	for _, c := range []struct {
		name string
		l    Logistic
	}{{"vector", r.Vector}, {"lexical", r.Lexical}, {"hybrid", r.Hybrid}} {
		for _, x := range []float64{c.l.Bias, c.l.Cosine, c.l.Words} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return invalid.Errorf("relevance curve %s: %v is not a finite number", c.name, x)
			}
		}
		if c.l.Cosine < 0 || c.l.Words < 0 {
			return invalid.Errorf("relevance curve %s: weights must not be negative (cosine %v, words %v)", c.name, c.l.Cosine, c.l.Words)
		}
	}
	if !(r.MinScore >= 0 && r.MinScore < 1) {
		return invalid.Errorf("relevance min score %v; it must be from 0 to below 1", r.MinScore)
	}
	return nil
}

// DefaultRelevance are the curves used when memory's
// Options.Search.Relevance is nil: those fitted for the offline default (package local's relevance.json
// holds them, and says how they were made), rounded, without their
// floor. Another embedder's cosines run on another scale, so its scores
// are only roughly calibrated by them, though the general profile's
// order (the hybrid curve's 0.7 cosine to 0.3 share) holds for any.
var DefaultRelevance = Relevance{
	Vector:  Logistic{Bias: -7.133, Cosine: 7.888},
	Lexical: Logistic{Bias: -5.504, Words: 6.747},
	Hybrid:  Logistic{Bias: -8.616, Cosine: 9.025, Words: 3.868},
}
