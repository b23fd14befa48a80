package search

import (
	"context"
	"slices"
	"strings"
)

// Namespace is what a search reads of one namespace: its indexes, all
// from one state (the caller's catch-up with the store), with the
// search's filter applied: no method returns a note the filter drops.
type Namespace interface {
	// Vectors returns the k notes nearest q by cosine, best first.
	Vectors(q []float32, k int) ([]Hit, error)
	// Text returns the k best notes for q by BM25, best first.
	Text(q string, k int) []Hit
	// Cosines returns the cosine of each of ids to q, as Vectors scores
	// it (0 for a note without a vector).
	Cosines(q []float32, ids []string) ([]float64, error)
	// Shares returns each of ids' full-text share of q, in [0, 1]: its
	// BM25 over what q's own words would score in a note of average
	// length (lexindex.Query.Share).
	Shares(q string, ids []string) []float64
	// SameContent returns the notes whose content is q: the same terms,
	// case and punctuation aside (lexindex.Index.SameContent).
	SameContent(q string) []string
	// Turns counts the namespace's dialogue turns, and its notes.
	Turns() (turns, notes int)
}

// Order orders the conversation profile's candidates: it gets the two
// rankings read to Depth and returns every candidate it places, best
// first (package search/conversation's).
type Order func(ctx context.Context, vec, lex []Hit) ([]string, error)

// Embedding returns the query's embedding, computed while the search
// reads what needs none (the caller starts it before catching up).
type Embedding func() ([]float32, error)

// Depth is how deep hybrid search reads each ranking for its first hits:
// deeper than k so that a note ranked moderately by both can beat one
// ranked high by only one, and the same for every k, so that the first n
// hits of a search do not depend on how many it asks for. A search for
// more hits than the first depth's notes reads deeper, in tiers
// (tierDepth).
const Depth = 50

// tierDepth is how deep hybrid search reads the rankings for k hits:
// Depth, else the first of 200, 800, 3200, ... that reaches k. Each
// tier's new notes follow the tiers before, in an order of their own, so
// a deeper read only appends.
func tierDepth(k int) int {
	d := Depth
	for d < k {
		d *= 4
	}
	return d
}

// Config is what a search ranks with besides its query.
type Config struct {
	Relevance *Relevance
	// Conversation orders the conversation profile's candidates; nil
	// leaves that profile in the general order.
	Conversation Order
}

// Direct returns the direct hits of q over ns, best first, each scored
// by its relevance, those below q.MinScore left out, at most q.K. A note
// whose content is the query comes first in every mode.
func Direct(ctx context.Context, ns Namespace, embed Embedding, q Query, cfg Config) ([]Hit, error) {
	var order []string
	var mr *measurer
	switch q.Mode {
	case Vector:
		qvec, err := embed()
		if err != nil {
			return nil, err
		}
		vec, err := ns.Vectors(qvec, q.K)
		if err != nil {
			return nil, err
		}
		order, mr = IDs(vec), newMeasurer(ns, q.Text, qvec, false, vec)
	case Lexical:
		lex := ns.Text(q.Text, q.K)
		order, mr = IDs(lex), newMeasurer(ns, q.Text, nil, true, nil)
	default:
		qvec, vec, lex, err := Rankings(ns, embed, q.Text, tierDepth(q.K))
		if err != nil {
			return nil, err
		}
		if order, mr, err = hybrid(ctx, ns, qvec, vec, lex, q, cfg); err != nil {
			return nil, err
		}
	}
	order = exactFirst(ns.SameContent(q.Text), order)
	// Hits are measured as far as they are read: the conversation
	// profile's order needs no measure, and its first k are what a
	// search at 100k notes can afford (about 0.3 ms for all 150).
	rel := cfg.Relevance
	out := make([]Hit, 0, min(q.K, len(order)))
	step := max(q.K, 16)
	for at := 0; at < len(order) && len(out) < q.K; at += step {
		ids := order[at:min(at+step, len(order))]
		if err := mr.measure(ids); err != nil {
			return nil, err
		}
		for _, id := range ids {
			var score float64
			switch q.Mode {
			case Vector:
				score = rel.Vector.Prob(mr.cos[id], 0)
			case Lexical:
				score = rel.Lexical.Prob(0, mr.share[id])
			default:
				score = rel.Hybrid.Prob(mr.cos[id], mr.share[id])
			}
			if score < q.MinScore {
				continue
			}
			out = append(out, Hit{ID: id, Score: score})
			if len(out) == q.K {
				break
			}
		}
	}
	return out, nil
}

// Rankings reads both rankings to depth d: the full text first, while the
// query's embedding is computed.
func Rankings(ns Namespace, embed Embedding, text string, d int) (qvec []float32, vec, lex []Hit, err error) {
	lex = ns.Text(text, d)
	if qvec, err = embed(); err != nil {
		return nil, nil, nil, err
	}
	vec, err = ns.Vectors(qvec, d)
	return qvec, vec, lex, err
}

// hybrid orders the candidates of both rankings (read to tierDepth(q.K)
// for the query embedded as qvec) by the profile the namespace asks for:
// those within Depth of either ranking first, then each deeper tier's new
// notes by relevance. It returns them with the measurer that measured
// them (the general profile's order measures every candidate; the
// conversation profile's, none).
func hybrid(ctx context.Context, ns Namespace, qvec []float32, vec, lex []Hit, q Query, cfg Config) ([]string, *measurer, error) {
	cut := func(h []Hit, d int) []Hit { return h[:min(d, len(h))] }
	mr := newMeasurer(ns, q.Text, qvec, true, vec)
	rel := cfg.Relevance.Hybrid
	byRelevance := func(ids []string) error {
		if err := mr.measure(ids); err != nil {
			return err
		}
		slices.SortFunc(ids, func(a, b string) int {
			if c := CompareScores(rel.linear(mr.cos[a], mr.share[a]), rel.linear(mr.cos[b], mr.share[b])); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		return nil
	}
	conversation := false
	if cfg.Conversation != nil {
		turns, notes := ns.Turns()
		conversation = ChooseProfile(q.Profile, turns, notes).Profile == ProfileConversation
	}
	var order []string
	placed := map[string]bool{}
	for d := Depth; ; d *= 4 {
		var tier []string
		for _, h := range slices.Concat(cut(vec, d), cut(lex, d)) {
			if !placed[h.ID] {
				placed[h.ID] = true
				tier = append(tier, h.ID)
			}
		}
		if d == Depth && conversation {
			first, err := cfg.Conversation(ctx, cut(vec, d), cut(lex, d))
			if err != nil {
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
		if d >= len(vec) && d >= len(lex) {
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
