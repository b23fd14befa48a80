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
	// SearchHybrid reads both rankings and orders their notes as the
	// namespace's profile says (profile.go): by relevance in the general
	// profile; by reciprocal rank fusion, extra rankings and a learned
	// ranker in the conversation profile.
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
	// LexicalWeight overrides Options.LexicalWeight (the conversation
	// profile's fusion).
	LexicalWeight float64
	// ReplyWeight, FeedbackWeight and DenseFeedbackWeight override the
	// Options' (the conversation profile); negative turns the ranking
	// off.
	ReplyWeight         float64
	FeedbackWeight      float64
	DenseFeedbackWeight float64
	// DaySpread overrides Options.DaySpread (the conversation profile);
	// negative turns it off.
	DaySpread float64
	// Ranker re-orders the conversation profile's candidates instead of
	// Options.Ranker; NoRanker turns the ranker off, for fusion's own
	// order.
	Ranker   *Ranker
	NoRanker bool
	// Profile overrides Options.Profile (hybrid mode; profile.go).
	Profile Profile
	// MinScore drops the direct hits whose Score, their relevance in
	// [0, 1] (relevance.go), is below it; the search still returns up to
	// K of those above. 0 keeps every hit.
	MinScore float64
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
	Note Note
	// Score is a direct hit's relevance, in [0, 1] in every mode
	// (relevance.go), and a linked note's link strength.
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
// in rank order (a note whose content is the query first; the first n
// are the same for any K of n or more); each brings up to LinksPerHit of its linked notes
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
	profile        Profile
	minScore       float64
	extra          extraWeights // the conversation profile's
	spread         float64
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
	p.profile = m.opts.Profile
	if req.Profile != "" {
		p.profile = req.Profile
	}
	if p.profile, err = validProfile(p.profile); err != nil {
		return p, err
	}
	p.extra = extraWeights{m.opts.ReplyWeight, m.opts.FeedbackWeight, m.opts.DenseFeedbackWeight}
	p.spread = m.opts.DaySpread
	for _, o := range []struct {
		req float64
		to  *float64
	}{{req.ReplyWeight, &p.extra.reply}, {req.FeedbackWeight, &p.extra.feedback}, {req.DenseFeedbackWeight, &p.extra.dense}, {req.DaySpread, &p.spread}} {
		if o.req != 0 {
			*o.to = o.req
		}
		if math.IsNaN(*o.to) || math.IsInf(*o.to, 0) {
			return p, invalidf("ranking weight or spread %v; it must be a finite number", *o.to)
		}
	}
	if p.spread >= 1 {
		return p, invalidf("day spread %v; it must be below 1", p.spread)
	}
	p.minScore = req.MinScore
	if math.IsNaN(p.minScore) || p.minScore < 0 || p.minScore > 1 {
		return p, invalidf("min score %v; it must be from 0 to 1", req.MinScore)
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

// fusionDepth is how deep hybrid search reads each ranking for its first
// hits: deeper than k so that a note ranked moderately by both can beat
// one ranked high by only one, and the same for every k, so that the
// first n hits of a search do not depend on how many it asks for. A
// search for more hits than the first depth's notes reads deeper, in
// tiers (tierDepth).
const fusionDepth = 50

// tierDepth is how deep hybrid search reads the rankings for k hits:
// fusionDepth, else the first of 200, 800, 3200, ... that reaches k.
// Each tier's new notes follow the tiers before, in an order of their
// own, so a deeper read only appends.
func tierDepth(k int) int {
	d := fusionDepth
	for d < k {
		d *= 4
	}
	return d
}

// direct returns the search's direct hits, best first, each scored by
// its relevance (relevance.go), those below the request's MinScore left
// out. A note whose content is the query comes first in every mode. With
// collect set (hybrid mode only), it stops at the conversation profile's
// candidates and leaves them and their features there instead.
func (m *Memory) direct(ctx context.Context, req SearchRequest, p searchPlan, collect *[]RankCandidate) ([]Scored, error) {
	vecK, lexK := 0, 0
	switch p.mode {
	case SearchVector:
		vecK = p.k
	case SearchLexical:
		lexK = p.k
	case SearchHybrid:
		vecK, lexK = tierDepth(p.k), tierDepth(p.k)
	default:
		return nil, invalidf("search mode %q; use vector, lexical or hybrid", p.mode)
	}
	r, err := m.rank(ctx, req.Namespace, p.q, vecK, lexK, p.allow)
	if err != nil {
		return nil, err
	}
	var filter func(string) bool
	if p.allow != nil {
		filter = func(id string) bool { return p.allow[id] }
	}
	rel := m.opts.Relevance
	var order []string
	var mr *measurer
	rerank := m.rerank(ctx, req.Namespace)
	switch p.mode {
	case SearchVector:
		order, mr = scoredIDs(r.vec), newMeasurer(r.s, p.q, r.qvec, false, r.vec, rerank)
	case SearchLexical:
		order, mr = scoredIDs(r.lex), newMeasurer(r.s, p.q, nil, true, nil, nil)
	case SearchHybrid:
		order, mr, err = m.hybrid(ctx, r, req, p, collect)
	}
	if err != nil || collect != nil {
		return nil, err
	}
	order = exactFirst(r.s.sameContent(p.q, filter), order)
	// Hits are measured as far as they are read: the conversation
	// profile's order needs no measure, and its first k are what a
	// search at 100k notes can afford (about 0.3 ms for all 150).
	out := make([]Scored, 0, min(p.k, len(order)))
	step := max(p.k, 16)
	for at := 0; at < len(order) && len(out) < p.k; at += step {
		ids := order[at:min(at+step, len(order))]
		if err := mr.measure(ids); err != nil {
			return nil, err
		}
		for _, id := range ids {
			var score float64
			switch p.mode {
			case SearchVector:
				score = rel.Vector.Prob(mr.me.cos[id], 0)
			case SearchLexical:
				score = rel.Lexical.Prob(0, mr.me.share[id])
			default:
				score = rel.Hybrid.Prob(mr.me.cos[id], mr.me.share[id])
			}
			if score < p.minScore {
				continue
			}
			out = append(out, Scored{ID: id, Score: score})
			if len(out) == p.k {
				break
			}
		}
	}
	return out, nil
}

// hybrid orders the candidates of both rankings by the profile the
// namespace asks for: those within fusionDepth of either ranking first,
// then each deeper tier's new notes by relevance. It returns them with
// the measurer that measured them (the general profile's order measures
// every candidate; the conversation profile's, none).
func (m *Memory) hybrid(ctx context.Context, r ranked, req SearchRequest, p searchPlan, collect *[]RankCandidate) ([]string, *measurer, error) {
	cut := func(h []Scored, d int) []Scored { return h[:min(d, len(h))] }
	mr := newMeasurer(r.s, p.q, r.qvec, true, r.vec, m.rerank(ctx, req.Namespace))
	rel := m.opts.Relevance.Hybrid
	byRelevance := func(ids []string) error {
		if err := mr.measure(ids); err != nil {
			return err
		}
		me := mr.me
		slices.SortFunc(ids, func(a, b string) int {
			if c := cmpFloatDesc(rel.linear(me.cos[a], me.share[a]), rel.linear(me.cos[b], me.share[b])); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		return nil
	}
	var order []string
	placed := map[string]bool{}
	for d := fusionDepth; ; d *= 4 {
		var tier []string
		for _, h := range slices.Concat(cut(r.vec, d), cut(r.lex, d)) {
			if !placed[h.ID] {
				placed[h.ID] = true
				tier = append(tier, h.ID)
			}
		}
		if d == fusionDepth && (r.s.profileOf(p.profile).Profile == ProfileConversation || collect != nil) {
			first, err := m.fuseConversation(ctx, r.s, req, p, cut(r.vec, d), cut(r.lex, d), collect)
			if err != nil || collect != nil {
				return nil, nil, err
			}
			for _, id := range first { // the extra rankings' own notes
				placed[id] = true
			}
			tier = first
		} else if err := byRelevance(tier); err != nil {
			return nil, nil, err
		}
		order = append(order, tier...)
		if d >= len(r.vec) && d >= len(r.lex) {
			return order, mr, nil
		}
	}
}

// exactFirst moves the notes whose content is the query to the front of
// order, in their order there (those it lacks first, as given).
func exactFirst(exact, order []string) []string {
	if len(exact) == 0 {
		return order
	}
	is := make(map[string]bool, len(exact))
	for _, id := range exact {
		is[id] = true
	}
	out := make([]string, 0, len(order)+len(exact))
	placed := map[string]bool{}
	for _, id := range order {
		if is[id] {
			out = append(out, id)
			placed[id] = true
		}
	}
	for _, id := range exact {
		if !placed[id] {
			out = append(out, id)
		}
	}
	for _, id := range order {
		if !is[id] {
			out = append(out, id)
		}
	}
	return out
}

func scoredIDs(hs []Scored) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
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

// ranked is what rank read: the namespace's space, the query's
// embedding (nil when no vectors were read) and the two rankings.
type ranked struct {
	s        *space
	qvec     []float32
	vec, lex []Scored
}

// rank returns the namespace's top vecK notes by cosine to the query's
// embedding and its top lexK by BM25 (none for a zero count), among the
// notes in allow if it is not nil, both from indexes caught up with every
// change committed before the call, and the space holding them: the rest
// of the search reads the same indexes (an evicted space stays valid for
// the searches using it), without a second catch-up.
func (m *Memory) rank(ctx context.Context, ns, q string, vecK, lexK int, allow map[string]bool) (r ranked, err error) {
	var emb *queryEmbedding
	if vecK > 0 {
		emb = m.startEmbedding(ctx, q)
		defer emb.stop()
	}
	r.s, err = m.fresh(ctx, ns)
	if err != nil {
		return r, err
	}
	if lexK > 0 {
		var filter func(string) bool
		if allow != nil {
			filter = func(id string) bool { return allow[id] }
		}
		_, span := m.startSpan(ctx, "amem.search.text", attrCandidates.Int(lexK))
		hits := r.s.searchText(q, lexK, filter)
		span.End()
		r.lex = make([]Scored, len(hits))
		for i, h := range hits {
			r.lex[i] = Scored{ID: h.ID, Score: h.Score}
		}
	}
	if vecK > 0 {
		if r.qvec, err = emb.wait(); err != nil {
			return r, err
		}
		vctx, span := m.startSpan(ctx, "amem.search.vectors", attrCandidates.Int(vecK))
		hits, err := r.s.search(r.qvec, vecK, allow, "", m.rerank(vctx, ns))
		endSpan(span, err)
		if err != nil {
			return r, err
		}
		r.vec = make([]Scored, len(hits))
		for i, h := range hits {
			r.vec[i] = Scored{ID: h.ID, Score: float64(h.Score)}
		}
	}
	return r, nil
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

// fuseConversation orders the conversation profile's candidates: it
// fuses the vector and full-text rankings (read to fusionDepth),
// weighted 1 and p.w, with the extra rankings derived from their fusion,
// and then either re-orders the fusion's first rankerWindow candidates
// by the ranker, the rest following in fused order, or spreads the
// candidates over days, as far as the request or the options ask (see
// rankings.go and ranker.go). It returns every candidate, ordered.
func (m *Memory) fuseConversation(ctx context.Context, s *space, req SearchRequest, p searchPlan, vec, lex []Scored, collect *[]RankCandidate) ([]string, error) {
	ew, spread := p.extra, p.spread
	weights := []float64{1, p.w}
	rankings := [][]Scored{vec, lex}
	names := []string{"vector", "lexical"}
	if ew.any() {
		more, moreW, moreN, err := m.extraRankings(ctx, s, fuse(fusionDepth, weights, rankings...), fusionDepth, ew, p.allow)
		if err != nil {
			return nil, err
		}
		rankings, weights, names = append(rankings, more...), append(weights, moreW...), append(names, moreN...)
	}
	fused := fuse(math.MaxInt, weights, rankings...)
	ranker := m.rankerFor(req)
	if collect != nil || ranker != nil && spread <= 0 {
		in := rankInput{query: p.q, names: names, rankings: rankings, window: fused[:min(rankerWindow, len(fused))]}
		if collect != nil {
			*collect = rankCandidates(s, in)
			return nil, nil
		}
		return append(scoredIDs(applyRanker(s, ranker, in)), scoredIDs(fused[len(in.window):])...), nil
	}
	if spread > 0 {
		spreadOut, err := m.spreadOverDays(ctx, req.Namespace, fused, spread)
		return scoredIDs(spreadOut), err
	}
	return scoredIDs(fused), nil
}

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
