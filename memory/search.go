package memory

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem"

	"github.com/amem-dev/amem/internal/searchtune"
	"github.com/amem-dev/amem/search"
	"github.com/amem-dev/amem/search/conversation"
)

// Search runs package search's pipeline over a namespace's indexes
// (searchview.go) and loads the hits' notes; the conversation profile
// comes from package search/conversation. The names below are theirs,
// under the names this package gives them.

// Relevance and Logistic turn what a search measured of a hit into its
// Score (search.Relevance).
type (
	Relevance = search.Relevance
	Logistic  = search.Logistic
)

// DefaultRelevance are the curves used when Options.Search.Relevance is nil.
var DefaultRelevance = search.DefaultRelevance

// SearchCandidate is a note hybrid search considers, measured.
type SearchCandidate = search.Candidate

// Ranker is the conversation profile's learned ranker, RankCandidate one
// candidate of its window with its features (package
// search/conversation).
type (
	Ranker        = conversation.Ranker
	RankCandidate = conversation.RankCandidate
)

// RankFeatureNames lists the features a Ranker may weigh.
func RankFeatureNames() []string { return conversation.RankFeatureNames() }

// FuseRRF merges rankings by reciprocal rank fusion.
func FuseRRF(k int, rankings ...[]amem.Scored) []amem.Scored {
	return conversation.FuseRRF(k, rankings...)
}

// Search returns the context list for a query (package search has the
// pipeline). Policy: the K direct hits in rank order (a note whose
// content is the query first; the first n are the same for any K of n or
// more); each brings up to LinksPerHit of its linked notes (strongest
// link first) that are not already in the list, until LinkBudget linked
// notes have been added. The linked notes come after all direct hits
// (LinksAfter, the default) or right after the hit that brought them
// (LinksInterleaved). Every direct hit is always returned (the reference
// code truncated after adding links). A linked note's Score is its
// link's strength. The filter is exact in every mode: the direct hits
// are the best notes that pass it, and linked notes pass it too.
func (m *Memory) Search(ctx context.Context, req amem.SearchRequest) ([]amem.Result, error) {
	mode := req.Mode
	if mode == "" {
		mode = amem.SearchHybrid
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

// planned checks req and runs fn with its plan over the namespace's view.
func planned[T any](ctx context.Context, m *Memory, req amem.SearchRequest, fn func(p searchPlan, v *searchView) (T, error)) (T, error) {
	var zero T
	p, err := m.planSearch(ctx, req)
	if err != nil {
		return zero, err
	}
	v, err := m.openView(ctx, req.Namespace, p)
	if err != nil {
		return zero, err
	}
	defer v.close()
	return fn(p, v)
}

func (m *Memory) search(ctx context.Context, req amem.SearchRequest) ([]amem.Result, error) {
	return planned(ctx, m, req, func(p searchPlan, v *searchView) ([]amem.Result, error) { return m.searchIn(ctx, req, p, v) })
}

func (m *Memory) searchIn(ctx context.Context, req amem.SearchRequest, p searchPlan, v *searchView) ([]amem.Result, error) {
	cfg := search.Config{Relevance: m.opts.Search.Relevance}
	if p.mode == amem.SearchHybrid {
		cfg.Conversation = m.orderer(v, p).Order
	}
	hits, err := search.Direct(ctx, v, v.embedding, p.query(), cfg)
	if err != nil {
		return nil, err
	}
	ctx, span := m.startSpan(ctx, "amem.search.read")
	res, err := m.expand(ctx, req, hits, v.SameContent(p.q), p)
	endSpan(span, err)
	return res, err
}

// searchPlan is a search request checked, with the Options' values for
// what it leaves out (and the evaluation's tuning, internal/searchtune),
// and the notes its filter allows (nil: all).
type searchPlan struct {
	q              string
	k              int
	mode           amem.SearchMode
	perHit, budget int
	order          amem.LinkOrder
	profile        amem.Profile
	minScore       float64
	weights        conversation.Weights
	ranker         *Ranker // nil: fusion's order
	allow          map[string]bool
	// at is the time the search answers for (AsOf, or now): a note
	// superseded by then ranks below what superseded it.
	at time.Time
}

func (p searchPlan) query() search.Query {
	return search.Query{Text: p.q, K: p.k, Mode: p.mode, Profile: p.profile, MinScore: p.minScore}
}

func (m *Memory) planSearch(ctx context.Context, req amem.SearchRequest) (searchPlan, error) {
	var p searchPlan
	if err := amem.ValidNamespace(req.Namespace); err != nil {
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
	if p.k < 0 || p.k > amem.MaxK {
		return p, invalidf("k is %d; it must be between 1 and %d", p.k, amem.MaxK)
	}
	p.mode = req.Mode
	switch p.mode {
	case "":
		p.mode = amem.SearchHybrid
	case amem.SearchVector, amem.SearchLexical, amem.SearchHybrid:
	default:
		return p, invalidf("search mode %q; use vector, lexical or hybrid", p.mode)
	}
	p.perHit, p.budget = m.opts.Search.LinksPerHit, m.opts.Search.LinkBudget
	if req.LinksPerHit != 0 {
		p.perHit = req.LinksPerHit
	}
	if req.LinkBudget != 0 {
		p.budget = req.LinkBudget
	}
	if p.budget == 0 {
		p.budget = p.k
	}
	p.order = m.opts.Search.LinkOrder
	if req.LinkOrder != "" {
		p.order = req.LinkOrder
	}
	if p.order != amem.LinksAfter && p.order != amem.LinksInterleaved {
		return p, invalidf("link order %q; use after or interleaved", p.order)
	}
	f, err := validFilter(req.Filter)
	if err != nil {
		return p, err
	}
	p.at = searchTime(req, m.opts.Now())
	f = asOfFilter(req, f, p.at)
	p.profile = m.opts.Search.Profile
	if req.Profile != "" {
		p.profile = req.Profile
	}
	if p.profile, err = search.ValidProfile(p.profile); err != nil {
		return p, err
	}
	p.minScore = req.MinScore
	if math.IsNaN(p.minScore) || p.minScore < 0 || p.minScore > 1 {
		return p, invalidf("min score %v; it must be from 0 to 1", req.MinScore)
	}
	if err := m.planConversation(ctx, req, &p); err != nil {
		return p, err
	}

	// Both rankings and link expansion keep only the notes that pass the
	// filter: the store says which those are.
	if !f.IsZero() {
		var ids []string
		if err := m.view(ctx, func(tx amem.Tx) error {
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

// planConversation sets the conversation profile's weights and ranker:
// the options', as the evaluation's tuning overrides them
// (internal/searchtune), the ranker off with NoRanker.
func (m *Memory) planConversation(ctx context.Context, req amem.SearchRequest, p *searchPlan) error {
	t, _ := searchtune.From(ctx)
	p.weights = conversation.Weights{
		Lexical: m.opts.Search.LexicalWeight, Reply: m.opts.Search.ReplyWeight, Feedback: m.opts.Search.FeedbackWeight,
		Dense: m.opts.Search.DenseFeedbackWeight, DaySpread: m.opts.Search.DaySpread,
	}
	for _, o := range []struct {
		tuned float64
		to    *float64
	}{{t.LexicalWeight, &p.weights.Lexical}, {t.ReplyWeight, &p.weights.Reply}, {t.FeedbackWeight, &p.weights.Feedback},
		{t.DenseFeedbackWeight, &p.weights.Dense}, {t.DaySpread, &p.weights.DaySpread}} {
		if o.tuned != 0 {
			*o.to = o.tuned
		}
		if math.IsNaN(*o.to) || math.IsInf(*o.to, 0) {
			return invalidf("ranking weight or spread %v; it must be a finite number", *o.to)
		}
	}
	if w := p.weights.Lexical; w <= 0 {
		return invalidf("lexical weight %v; it must be a positive number", w)
	}
	if p.weights.DaySpread >= 1 {
		return invalidf("day spread %v; it must be below 1", p.weights.DaySpread)
	}
	p.ranker = m.opts.Search.Ranker
	if t.Ranker != nil {
		if err := t.Ranker.Validate(); err != nil {
			return err
		}
		p.ranker = t.Ranker
	}
	if req.NoRanker {
		p.ranker = nil
	}
	return nil
}

// orderer is the conversation profile's order over v.
func (m *Memory) orderer(v *searchView, p searchPlan) conversation.Orderer {
	return conversation.Orderer{Source: v, Weights: p.weights, Ranker: p.ranker, Query: p.q, Allow: v.filter}
}

// RankFeatures runs a hybrid search up to the conversation profile's
// ranker's window and returns its candidates in fusion order with their
// features: what a ranker is trained on (package eval). The request is
// read as Search reads it; its mode must be hybrid (or left empty).
func (m *Memory) RankFeatures(ctx context.Context, req amem.SearchRequest) ([]RankCandidate, error) {
	if req.Mode != "" && req.Mode != amem.SearchHybrid {
		return nil, invalidf("rank features come from hybrid search; the request's mode is %s", req.Mode)
	}
	return planned(ctx, m, req, func(p searchPlan, v *searchView) ([]RankCandidate, error) {
		_, vec, lex, err := search.Rankings(v, v.embedding, p.q, search.Depth)
		if err != nil {
			return nil, err
		}
		return m.orderer(v, p).Candidates(ctx, vec, lex)
	})
}

// SearchCandidates returns the first tier of a hybrid search's
// candidates for req (the notes within the first depth of either
// ranking, and the notes whose content is the query), measured, in the
// general profile's order. K, MinScore and the profile are ignored.
func (m *Memory) SearchCandidates(ctx context.Context, req amem.SearchRequest) ([]SearchCandidate, error) {
	req.Mode, req.K, req.MinScore, req.Profile = amem.SearchHybrid, 1, 0, amem.ProfileGeneral
	return planned(ctx, m, req, func(p searchPlan, v *searchView) ([]SearchCandidate, error) {
		return search.Candidates(ctx, v, v.embedding, p.q, m.opts.Search.Relevance)
	})
}

// SearchProfile says which profile a hybrid search of the namespace
// would use now, with the options' profile (Options.Search.Profile) or want if
// it is set, and why.
func (m *Memory) SearchProfile(ctx context.Context, ns string, want amem.Profile) (amem.ProfileInfo, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return amem.ProfileInfo{}, err
	}
	if want == "" {
		want = m.opts.Search.Profile
	}
	want, err := search.ValidProfile(want)
	if err != nil {
		return amem.ProfileInfo{}, err
	}
	s, err := m.k.Fresh(ctx, ns)
	if err != nil {
		return amem.ProfileInfo{}, err
	}
	turns, notes := s.Turns()
	return search.ChooseProfile(want, turns, notes), nil
}

// SuggestedMinScore is the relevance floor measured for the memory's
// curves (Relevance.MinScore): what an agent's search applies unless it
// names its own; 0 where the curves are not calibrated for the embedder.
func (m *Memory) SuggestedMinScore() float64 { return m.opts.Search.Relevance.MinScore }

// validFilter checks a search filter as Add checks a note's tags and
// metadata, and returns it with its tags trimmed as stored tags are: a
// blank or oversized term could never match, and would be answered with
// silence.
func validFilter(f amem.Filter) (amem.Filter, error) {
	if !f.To.IsZero() && !f.From.IsZero() && !f.To.After(f.From) {
		return f, invalidf("time range is empty: from %s is not before to %s", f.From, f.To)
	}
	if n := len(f.Tags) + len(f.Metadata); n > amem.MaxFilterTerms {
		return f, invalidf("the filter has %d tags and metadata pairs; the limit is %d", n, amem.MaxFilterTerms)
	}
	switch f.TagSource {
	case amem.TagSourceAny, amem.TagSourceCaller, amem.TagSourceCurator:
	default:
		return f, invalidf("filter tag source %q; use %q, %q or %q (any)", f.TagSource, amem.TagSourceCaller, amem.TagSourceCurator, amem.TagSourceAny)
	}
	if len(f.Tags) > 0 {
		tags, err := amem.ValidTerms("filter tags", f.Tags, amem.MaxFilterTerms)
		if err != nil {
			return f, err
		}
		f.Tags = tags
	}
	return f, amem.ValidMetadata(f.Metadata)
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

// expand loads the direct hits and adds linked notes by the policy
// documented on Search (search.Expansion), in two reads of the store.
func (m *Memory) expand(ctx context.Context, req amem.SearchRequest, hits []amem.Scored, exact []string, p searchPlan) ([]amem.Result, error) {
	ns := req.Namespace
	var out []amem.Result
	err := m.view(ctx, func(tx amem.Tx) error {
		notes, err := tx.NotesWithoutEmbeddings(ns, search.IDs(hits))
		if err != nil {
			return err
		}
		byID := make(map[string]amem.Note, len(notes))
		for _, n := range notes {
			byID[n.ID] = n
		}
		if hits, err = m.currentFirst(tx, ns, hits, exact, byID, p); err != nil {
			return err
		}
		x := search.Expansion{PerHit: p.perHit, Budget: p.budget, Order: p.order}
		if p.allow != nil {
			x.Allow = func(id string) bool { return p.allow[id] }
		}
		entries := x.Expand(hits, func(id string) ([]search.Link, bool) {
			n, ok := byID[id]
			if !ok {
				return nil, false // deleted between ranking and loading
			}
			links := slices.Clone(n.Links)
			slices.SortStableFunc(links, cmpStrength)
			out := make([]search.Link, len(links))
			for i, l := range links {
				out[i] = search.Link{Other: l.Other(n.ID), Strength: l.Strength}
			}
			return out, true
		})
		var want []string
		for _, e := range entries {
			if e.Via != "" {
				want = append(want, e.ID)
			}
		}
		linked, err := tx.NotesWithoutEmbeddings(ns, want)
		if err != nil {
			return err
		}
		for _, n := range linked {
			byID[n.ID] = n
		}
		for _, e := range entries {
			n, ok := byID[e.ID]
			if !ok {
				continue
			}
			r := amem.Result{Note: asOfView(n, req), Score: e.Score, Kind: amem.Direct}
			if e.Via != "" {
				r.Kind, r.Via = amem.Linked, e.Via
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}
