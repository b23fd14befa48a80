package amem

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
)

// SearchMode chooses how direct hits are found.
type SearchMode string

const (
	// SearchVector ranks notes by cosine of their embedding to the query's.
	SearchVector SearchMode = "vector"
	// SearchLexical ranks notes by BM25 over content, context, keywords
	// and tags.
	SearchLexical SearchMode = "lexical"
	// SearchHybrid fuses the vector and lexical rankings by reciprocal
	// rank (RRF, k=60), each ranking taken to Depth.
	SearchHybrid SearchMode = "hybrid"
)

// SearchRequest is a query. Namespace and Query are required.
type SearchRequest struct {
	Namespace string
	Query     string
	// K is the number of direct hits (default 10, at most MaxK).
	K int
	// Mode defaults to SearchHybrid.
	Mode   SearchMode
	Filter Filter
	// LinksPerHit and LinkBudget override Options for this search; zero
	// means the Options value, negative disables linked notes.
	LinksPerHit int
	LinkBudget  int
	// LinkOrder overrides Options.LinkOrder.
	LinkOrder LinkOrder
	// LexicalWeight overrides Options.LexicalWeight (hybrid mode).
	LexicalWeight float64
	// ReplyWeight, FeedbackWeight and DenseFeedbackWeight override the
	// Options' (hybrid mode); negative turns the ranking off.
	ReplyWeight         float64
	FeedbackWeight      float64
	DenseFeedbackWeight float64
	// DaySpread overrides Options.DaySpread (hybrid mode); negative turns
	// it off.
	DaySpread float64
	// Ranker re-orders hybrid search's candidates instead of
	// Options.Ranker; NoRanker turns the ranker off, for fusion's own
	// order.
	Ranker   *Ranker
	NoRanker bool
}

// ResultKind says why a note is in the results.
type ResultKind string

const (
	Direct ResultKind = "direct" // a hit for the query
	Linked ResultKind = "linked" // linked to a direct hit
)

// Result is one note of the context list. Clients get it as package
// wire's Result.
type Result struct {
	// Note is the note without its embedding (nil): reading 2 KB of
	// vector per hit was a third of a search's time at 1M notes, and no
	// client shape carries it; Get returns it.
	Note  Note
	Score float64
	Kind  ResultKind
	// Via is the direct hit a linked note came through.
	Via string
}

// MaxFilterTerms bounds a search filter's tags and metadata pairs
// together. Every candidate note is tested against each of them, so the
// bound keeps one request's cost in proportion; a person or an agent
// narrows a search with a few.
const MaxFilterTerms = 64

// rrfK is the usual reciprocal-rank-fusion constant; it damps the weight
// of the top ranks so neither list dominates.
const rrfK = 60

// Search returns the context list for a query. Policy: the K direct hits
// in rank order; each brings up to LinksPerHit of its linked notes
// (strongest link first) that are not already in the list, until
// LinkBudget linked notes have been added. The linked notes come after all
// direct hits (LinksAfter, the default) or right after the hit that
// brought them (LinksInterleaved). Every direct hit is always returned
// (the reference code truncated after adding links). A linked note's
// Score is its link's strength. The filter is exact in every mode: the
// direct hits are the best notes that pass it, and linked notes pass it
// too.
func (m *Memory) Search(ctx context.Context, req SearchRequest) ([]Result, error) {
	mode := req.Mode
	if mode == "" {
		mode = SearchHybrid
	}
	k := req.K
	if k == 0 {
		k = 10
	}
	ctx, span := m.startSpan(ctx, "amem.Search", attrNamespace.String(req.Namespace),
		attrMode.String(string(mode)), attrK.Int(k), attrFiltered.Bool(!req.Filter.IsZero()))
	res, err := m.search(ctx, req)
	span.SetAttributes(attrHits.Int(len(res)))
	endSpan(span, err)
	return res, err
}

func (m *Memory) search(ctx context.Context, req SearchRequest) ([]Result, error) {
	p, err := m.planSearch(ctx, req)
	if err != nil {
		return nil, err
	}
	hits, err := m.direct(ctx, req, p, nil)
	if err != nil {
		return nil, err
	}
	ctx, span := m.startSpan(ctx, "amem.search.read")
	res, err := m.expand(ctx, req.Namespace, hits, p.perHit, p.budget, p.order, p.allow)
	endSpan(span, err)
	return res, err
}

// searchPlan is a search request checked, with the Options' values for
// what it leaves out, and the notes its filter allows (nil: all).
type searchPlan struct {
	q              string
	k              int
	mode           SearchMode
	perHit, budget int
	order          LinkOrder
	w              float64 // the full-text ranking's weight in hybrid fusion
	allow          map[string]bool
}

func (m *Memory) planSearch(ctx context.Context, req SearchRequest) (searchPlan, error) {
	var p searchPlan
	if err := ValidNamespace(req.Namespace); err != nil {
		return p, err
	}
	p.q = strings.TrimSpace(req.Query)
	if p.q == "" {
		return p, invalidf("query is empty")
	}
	if len(p.q) > m.opts.MaxContentBytes {
		return p, invalidf("query is %d bytes, the limit is %d", len(p.q), m.opts.MaxContentBytes)
	}
	p.k = req.K
	if p.k == 0 {
		p.k = 10
	}
	if p.k < 0 || p.k > MaxK {
		return p, invalidf("k is %d; it must be between 1 and %d", p.k, MaxK)
	}
	p.mode = req.Mode
	if p.mode == "" {
		p.mode = SearchHybrid
	}
	p.perHit, p.budget = m.opts.LinksPerHit, m.opts.LinkBudget
	if req.LinksPerHit != 0 {
		p.perHit = req.LinksPerHit
	}
	if req.LinkBudget != 0 {
		p.budget = req.LinkBudget
	}
	if p.budget == 0 {
		p.budget = p.k
	}
	p.order = m.opts.LinkOrder
	if req.LinkOrder != "" {
		p.order = req.LinkOrder
	}
	if p.order != LinksAfter && p.order != LinksInterleaved {
		return p, invalidf("link order %q; use after or interleaved", p.order)
	}
	f, err := validFilter(req.Filter)
	if err != nil {
		return p, err
	}

	p.w = m.opts.LexicalWeight
	if req.LexicalWeight != 0 {
		p.w = req.LexicalWeight
	}
	if p.mode == SearchHybrid && (p.w < 0 || math.IsNaN(p.w) || math.IsInf(p.w, 0)) {
		return p, invalidf("lexical weight %v; it must be a positive number", p.w)
	}
	if req.Ranker != nil {
		if err := req.Ranker.Validate(); err != nil {
			return p, err
		}
	}

	// Both rankings and link expansion keep only the notes that pass the
	// filter: the store says which those are.
	if !f.IsZero() {
		var ids []string
		if err := m.view(ctx, func(tx Tx) error {
			var err error
			ids, err = tx.MatchIDs(req.Namespace, f)
			return err
		}); err != nil {
			return p, err
		}
		p.allow = make(map[string]bool, len(ids))
		for _, id := range ids {
			p.allow[id] = true
		}
	}
	return p, nil
}

// direct returns the search's direct hits. With collect set (hybrid
// mode only), it stops at the ranker's window and leaves its candidates
// and their features there instead.
func (m *Memory) direct(ctx context.Context, req SearchRequest, p searchPlan, collect *[]RankCandidate) ([]Scored, error) {
	switch p.mode {
	case SearchVector:
		_, hits, _, err := m.rank(ctx, req.Namespace, p.q, p.k, 0, p.allow)
		return hits, err
	case SearchLexical:
		_, _, hits, err := m.rank(ctx, req.Namespace, p.q, 0, p.k, p.allow)
		return hits, err
	case SearchHybrid:
		depth := hybridDepth(p.k)
		s, vec, lex, err := m.rank(ctx, req.Namespace, p.q, depth, depth, p.allow)
		if err != nil {
			return nil, err
		}
		return m.fuseHybrid(ctx, s, req, p, depth, vec, lex, collect)
	}
	return nil, invalidf("search mode %q; use vector, lexical or hybrid", p.mode)
}

// validFilter checks a search filter as Add checks a note's tags and
// metadata, and returns it with its tags trimmed as stored tags are: a
// blank or oversized term could never match, and would be answered with
// silence.
func validFilter(f Filter) (Filter, error) {
	if !f.To.IsZero() && !f.From.IsZero() && !f.To.After(f.From) {
		return f, invalidf("time range is empty: from %s is not before to %s", f.From, f.To)
	}
	if n := len(f.Tags) + len(f.Metadata); n > MaxFilterTerms {
		return f, invalidf("the filter has %d tags and metadata pairs; the limit is %d", n, MaxFilterTerms)
	}
	switch f.TagSource {
	case TagSourceAny, TagSourceCaller, TagSourceCurator:
	default:
		return f, invalidf("filter tag source %q; use %q, %q or %q (any)", f.TagSource, TagSourceCaller, TagSourceCurator, TagSourceAny)
	}
	if len(f.Tags) > 0 {
		tags, err := validTerms("filter tags", f.Tags, MaxFilterTerms)
		if err != nil {
			return f, err
		}
		f.Tags = tags
	}
	return f, validMetadata(f.Metadata)
}

// rank returns the namespace's top vecK notes by cosine to the query's
// embedding and its top lexK by BM25 (none for a zero count), among the
// notes in allow if it is not nil, both from indexes caught up with every
// change committed before the call, and the space holding them: the rest
// of the search reads the same indexes (an evicted space stays valid for
// the searches using it), without a second catch-up.
func (m *Memory) rank(ctx context.Context, ns, q string, vecK, lexK int, allow map[string]bool) (s *space, vec, lex []Scored, err error) {
	var emb *queryEmbedding
	if vecK > 0 {
		emb = m.startEmbedding(ctx, q)
		defer emb.stop()
	}
	s, err = m.fresh(ctx, ns)
	if err != nil {
		return nil, nil, nil, err
	}
	if lexK > 0 {
		var filter func(string) bool
		if allow != nil {
			filter = func(id string) bool { return allow[id] }
		}
		_, span := m.startSpan(ctx, "amem.search.text", attrCandidates.Int(lexK))
		hits := s.searchText(q, lexK, filter)
		span.End()
		lex = make([]Scored, len(hits))
		for i, h := range hits {
			lex[i] = Scored{ID: h.ID, Score: h.Score}
		}
	}
	if vecK > 0 {
		qvec, err := emb.wait()
		if err != nil {
			return nil, nil, nil, err
		}
		vctx, span := m.startSpan(ctx, "amem.search.vectors", attrCandidates.Int(vecK))
		hits, err := s.search(qvec, vecK, allow, "", m.rerank(vctx, ns))
		endSpan(span, err)
		if err != nil {
			return nil, nil, nil, err
		}
		vec = make([]Scored, len(hits))
		for i, h := range hits {
			vec[i] = Scored{ID: h.ID, Score: float64(h.Score)}
		}
	}
	return s, vec, lex, nil
}

// queryEmbedding is a query's embedding computed on another goroutine
// while a search catches its indexes up and reads the full-text ranking:
// one text is one core's work (a millisecond on the offline default, a
// round trip on a remote embedder), and neither step needs it.
type queryEmbedding struct {
	cancel context.CancelFunc
	done   chan struct{}
	vec    []float32
	err    error
}

func (m *Memory) startEmbedding(ctx context.Context, q string) *queryEmbedding {
	ctx, cancel := context.WithCancel(ctx)
	e := &queryEmbedding{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		vecs, err := m.embed(ctx, []string{q})
		if err == nil {
			e.vec = vecs[0]
		}
		e.err = err
	}()
	return e
}

// wait returns the embedding.
func (e *queryEmbedding) wait() ([]float32, error) {
	<-e.done
	return e.vec, e.err
}

// stop cancels the embedding if it still runs, and waits for it: a
// search that failed leaves nothing running.
func (e *queryEmbedding) stop() {
	e.cancel()
	<-e.done
}

// fuseHybrid fuses the vector and full-text rankings, weighted 1 and
// p.w, with the extra rankings derived from their fusion, and then
// either re-orders the fusion's first candidates by the ranker or
// spreads the hits over days, as far as the request or the options ask
// (see rankings.go and ranker.go).
func (m *Memory) fuseHybrid(ctx context.Context, s *space, req SearchRequest, p searchPlan, depth int, vec, lex []Scored, collect *[]RankCandidate) ([]Scored, error) {
	k := p.k
	ew := extraWeights{m.opts.ReplyWeight, m.opts.FeedbackWeight, m.opts.DenseFeedbackWeight}
	spread := m.opts.DaySpread
	for _, o := range []struct {
		req float64
		to  *float64
	}{{req.ReplyWeight, &ew.reply}, {req.FeedbackWeight, &ew.feedback}, {req.DenseFeedbackWeight, &ew.dense}, {req.DaySpread, &spread}} {
		if o.req != 0 {
			*o.to = o.req
		}
		if math.IsNaN(*o.to) || math.IsInf(*o.to, 0) {
			return nil, invalidf("ranking weight or spread %v; it must be a finite number", *o.to)
		}
	}
	if spread >= 1 {
		return nil, invalidf("day spread %v; it must be below 1", spread)
	}
	weights := []float64{1, p.w}
	rankings := [][]Scored{vec, lex}
	names := []string{"vector", "lexical"}
	if ew.any() {
		more, moreW, moreN, err := m.extraRankings(ctx, s, fuse(depth, weights, rankings...), k, depth, ew, p.allow)
		if err != nil {
			return nil, err
		}
		rankings, weights, names = append(rankings, more...), append(weights, moreW...), append(names, moreN...)
	}
	ranker := m.rankerFor(req)
	if collect != nil || ranker != nil && spread <= 0 {
		in := rankInput{query: p.q, names: names, rankings: rankings, window: fuse(rankerWindow(k), weights, rankings...)}
		if collect != nil {
			cands := rankCandidates(s, in)
			*collect = cands
			return nil, nil
		}
		return applyRanker(s, ranker, in, k), nil
	}
	if spread <= 0 {
		return fuse(k, weights, rankings...), nil
	}
	return m.spreadOverDays(ctx, req.Namespace, fuse(depth, weights, rankings...), k, spread)
}

// hybridDepth is how deep each ranking is read before fusion: deeper than
// k so that a note ranked moderately by both can beat one ranked high by
// only one.
func hybridDepth(k int) int { return max(k*3, 50) }

// FuseRRF merges rankings by reciprocal rank fusion: score(d) = sum over
// rankings of 1/(60 + rank). Ties break by ID for determinism.
func FuseRRF(k int, rankings ...[]Scored) []Scored {
	return fuse(k, nil, rankings...)
}

// fuse is weighted reciprocal rank fusion: ranking i adds
// weights[i]/(60 + rank); nil weights are all 1.
func fuse(k int, weights []float64, rankings ...[]Scored) []Scored {
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
	out := make([]Scored, 0, len(score))
	for id, s := range score {
		out = append(out, Scored{ID: id, Score: s})
	}
	slices.SortFunc(out, func(a, b Scored) int {
		if c := cmpFloatDesc(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// expand loads the direct hits and adds linked notes by the policy
// documented on Search.
func (m *Memory) expand(ctx context.Context, ns string, hits []Scored, perHit, budget int, order LinkOrder, allow map[string]bool) ([]Result, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	var out []Result
	err := m.view(ctx, func(tx Tx) error {
		notes, err := tx.NotesWithoutEmbeddings(ns, ids)
		if err != nil {
			return err
		}
		byID := make(map[string]Note, len(notes))
		for _, n := range notes {
			byID[n.ID] = n
		}
		in := make(map[string]bool, len(hits))
		for _, h := range hits {
			in[h.ID] = true
		}
		// Plan the linked notes first, so they load in one call.
		type pick struct {
			link Link
			via  string
		}
		var picks [][]pick
		var want []string
		used := 0
		for _, h := range hits {
			n, ok := byID[h.ID]
			var ps []pick
			if ok && perHit > 0 && budget > 0 {
				links := slices.Clone(n.Links)
				slices.SortStableFunc(links, cmpStrength)
				for _, l := range links {
					if len(ps) == perHit || used == budget {
						break
					}
					other := l.Other(n.ID)
					if in[other] || (allow != nil && !allow[other]) {
						continue
					}
					in[other] = true
					used++
					ps = append(ps, pick{l, n.ID})
					want = append(want, other)
				}
			}
			picks = append(picks, ps)
		}
		linked, err := tx.NotesWithoutEmbeddings(ns, want)
		if err != nil {
			return err
		}
		for _, n := range linked {
			byID[n.ID] = n
		}
		var after []Result
		for i, h := range hits {
			n, ok := byID[h.ID]
			if !ok {
				continue // deleted between ranking and loading
			}
			out = append(out, Result{Note: n, Score: h.Score, Kind: Direct})
			for _, p := range picks[i] {
				ln, ok := byID[p.link.Other(p.via)]
				if !ok {
					continue
				}
				r := Result{Note: ln, Score: p.link.Strength, Kind: Linked, Via: p.via}
				if order == LinksInterleaved {
					out = append(out, r)
				} else {
					after = append(after, r)
				}
			}
		}
		out = append(out, after...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}
