package amem

import (
	"context"
	"math"
	"slices"

	"github.com/amem-dev/amem/index/hnsw"
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
// in every mode, and a client can drop weak hits (SearchRequest.MinScore).

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
				return invalidf("relevance curve %s: %v is not a finite number", c.name, x)
			}
		}
		if c.l.Cosine < 0 || c.l.Words < 0 {
			return invalidf("relevance curve %s: weights must not be negative (cosine %v, words %v)", c.name, c.l.Cosine, c.l.Words)
		}
	}
	if !(r.MinScore >= 0 && r.MinScore < 1) {
		return invalidf("relevance min score %v; it must be from 0 to below 1", r.MinScore)
	}
	return nil
}

// DefaultRelevance are the curves used when Options.Relevance is nil:
// those fitted for the offline default (package local's relevance.json
// holds them, and says how they were made), rounded, without their
// floor. Another embedder's cosines run on another scale, so its scores
// are only roughly calibrated by them, though the general profile's
// order (the hybrid curve's 0.7 cosine to 0.3 share) holds for any.
var DefaultRelevance = Relevance{
	Vector:  Logistic{Bias: -7.133, Cosine: 7.888},
	Lexical: Logistic{Bias: -5.504, Words: 6.747},
	Hybrid:  Logistic{Bias: -8.616, Cosine: 9.025, Words: 3.868},
}

// measures are what a search measured of its candidates, each from one
// state of the namespace's indexes: each one's cosine to the query (if
// the search embedded it) and its full-text share of the query (if it
// reads words).
type measures struct {
	cos, share map[string]float64
}

// has says whether id is measured.
func (me measures) has(id string) bool {
	if me.cos != nil {
		_, ok := me.cos[id]
		return ok
	}
	_, ok := me.share[id]
	return ok
}

// measurer measures a search's candidates, as many as it needs.
type measurer struct {
	s     *space
	q     string
	qvec  []float32 // nil: cosines are not measured
	words bool      // shares are measured
	// known holds the cosines the vector ranking has read already.
	known  map[string]float64
	rerank hnsw.Rerank
	me     measures
}

func newMeasurer(s *space, q string, qvec []float32, words bool, vec []Scored, rerank hnsw.Rerank) *measurer {
	mr := &measurer{s: s, q: q, qvec: qvec, words: words, rerank: rerank}
	if qvec != nil {
		mr.known = make(map[string]float64, len(vec))
		for _, h := range vec {
			mr.known[h.ID] = h.Score
		}
		mr.me.cos = map[string]float64{}
	}
	if words {
		mr.me.share = map[string]float64{}
	}
	return mr
}

// measure measures those of ids not measured yet.
func (mr *measurer) measure(ids []string) error {
	var todo []string
	for _, id := range ids {
		if !mr.me.has(id) {
			todo = append(todo, id)
		}
	}
	slices.Sort(todo)
	todo = slices.Compact(todo)
	if len(todo) == 0 {
		return nil
	}
	s := mr.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	if mr.words {
		rq := s.lex.Resolve(mr.q)
		for _, id := range todo {
			mr.me.share[id] = rq.Share(s.lex.Score(rq, id))
		}
	}
	if mr.qvec == nil {
		return nil
	}
	var missing []string
	for _, id := range todo {
		if c, ok := mr.known[id]; ok {
			mr.me.cos[id] = c
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sims := make([]float32, len(missing))
	ok := make([]bool, len(missing))
	if err := s.idx.similarities(mr.qvec, missing, sims, ok, mr.rerank); err != nil {
		return err
	}
	for i, id := range missing {
		mr.me.cos[id] = float64(sims[i])
	}
	return nil
}

// sameContent returns the notes whose content is q (allow passing them),
// which every search puts first (lexindex.Index.SameContent).
func (s *space) sameContent(q string, allow func(string) bool) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lex.SameContent(s.lex.Resolve(q), allow)
}

// SearchCandidate is a note hybrid search considers for a query, with what it
// measured of it: what a relevance curve is fitted on, and what explains
// a ranking.
type SearchCandidate struct {
	ID string `json:"id"`
	// Cosine is the note's embedding's cosine to the query's; Share its
	// full-text share of the query (lexindex.Query.Share).
	Cosine float64 `json:"cosine"`
	Share  float64 `json:"share"`
	// Exact is set for a note whose content is the query.
	Exact bool `json:"exact,omitempty"`
	// VectorRank and LexicalRank are its places (from 1) in the two
	// rankings read to their first depth; 0 where it is not among them.
	VectorRank  int `json:"vector_rank,omitempty"`
	LexicalRank int `json:"lexical_rank,omitempty"`
}

// SearchCandidates returns the first tier of a hybrid search's candidates for
// req (the notes within the first depth of either ranking, and the notes
// whose content is the query), measured, in the general profile's order.
// K, MinScore and the profile are ignored.
func (m *Memory) SearchCandidates(ctx context.Context, req SearchRequest) ([]SearchCandidate, error) {
	req.Mode, req.K, req.MinScore, req.Profile = SearchHybrid, 1, 0, ProfileGeneral
	p, err := m.planSearch(ctx, req)
	if err != nil {
		return nil, err
	}
	r, err := m.rank(ctx, req.Namespace, p.q, fusionDepth, fusionDepth, p.allow)
	if err != nil {
		return nil, err
	}
	var filter func(string) bool
	if p.allow != nil {
		filter = func(id string) bool { return p.allow[id] }
	}
	order, mr, err := m.hybrid(ctx, r, req, p, nil)
	if err != nil {
		return nil, err
	}
	exact := r.s.sameContent(p.q, filter)
	order = exactFirst(exact, order)
	if err := mr.measure(order); err != nil {
		return nil, err
	}
	me := mr.me
	rank := func(hs []Scored) map[string]int {
		out := make(map[string]int, len(hs))
		for i, h := range hs {
			out[h.ID] = i + 1
		}
		return out
	}
	vr, lr := rank(r.vec), rank(r.lex)
	out := make([]SearchCandidate, len(order))
	for i, id := range order {
		out[i] = SearchCandidate{ID: id, Cosine: me.cos[id], Share: me.share[id], Exact: slices.Contains(exact, id), VectorRank: vr[id], LexicalRank: lr[id]}
	}
	return out, nil
}

// SuggestedMinScore is the relevance floor measured for the memory's
// curves (Relevance.MinScore): what an agent's search applies unless it
// names its own; 0 where the curves are not calibrated for the embedder.
func (m *Memory) SuggestedMinScore() float64 { return m.opts.Relevance.MinScore }
