package search

import (
	"context"
	"slices"
)

// measurer measures a search's candidates, as many as it reads: each
// one's cosine to the query (if the search embedded it) and its
// full-text share of the query (if it reads words).
type measurer struct {
	ns    Namespace
	q     string
	qvec  []float32 // nil: cosines are not measured
	words bool      // shares are measured
	// cos and share hold what is measured; cos starts with what the
	// vector ranking read.
	cos, share map[string]float64
	done       map[string]bool
}

func newMeasurer(ns Namespace, q string, qvec []float32, words bool, vec []Hit) *measurer {
	mr := &measurer{ns: ns, q: q, qvec: qvec, words: words,
		cos: make(map[string]float64, len(vec)), share: map[string]float64{}, done: map[string]bool{}}
	for _, h := range vec {
		mr.cos[h.ID] = h.Score
	}
	return mr
}

// measure measures those of ids not measured yet.
func (mr *measurer) measure(ids []string) error {
	var todo []string
	for _, id := range ids {
		if !mr.done[id] {
			todo = append(todo, id)
		}
	}
	slices.Sort(todo)
	todo = slices.Compact(todo)
	if len(todo) == 0 {
		return nil
	}
	if mr.words {
		for i, s := range mr.ns.Shares(mr.q, todo) {
			mr.share[todo[i]] = s
		}
	}
	if mr.qvec != nil {
		var missing []string
		for _, id := range todo {
			if _, ok := mr.cos[id]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			cos, err := mr.ns.Cosines(mr.qvec, missing)
			if err != nil {
				return err
			}
			for i, c := range cos {
				mr.cos[missing[i]] = c
			}
		}
	}
	for _, id := range todo {
		mr.done[id] = true
	}
	return nil
}

// Candidate is a note hybrid search considers for a query, with what it
// measured of it: what a relevance curve is fitted on, and what explains
// a ranking.
type Candidate struct {
	ID string `json:"id"`
	// Cosine is the note's embedding's cosine to the query's; Share its
	// full-text share of the query.
	Cosine float64 `json:"cosine"`
	Share  float64 `json:"share"`
	// Exact is set for a note whose content is the query.
	Exact bool `json:"exact,omitempty"`
	// VectorRank and LexicalRank are its places (from 1) in the two
	// rankings read to Depth; 0 where it is not among them.
	VectorRank  int `json:"vector_rank,omitempty"`
	LexicalRank int `json:"lexical_rank,omitempty"`
}

// Candidates returns the first tier of a hybrid search's candidates for
// text (the notes within Depth of either ranking, and the notes whose
// content is the query), measured, in the general profile's order.
func Candidates(ctx context.Context, ns Namespace, embed Embedding, text string, rel *Relevance) ([]Candidate, error) {
	qvec, vec, lex, err := Rankings(ns, embed, text, Depth)
	if err != nil {
		return nil, err
	}
	order, mr, err := hybrid(ctx, ns, qvec, vec, lex, Query{Text: text, K: 1, Mode: Hybrid, Profile: ProfileGeneral}, Config{Relevance: rel})
	if err != nil {
		return nil, err
	}
	exact := ns.SameContent(text)
	order = exactFirst(exact, order)
	if err := mr.measure(order); err != nil {
		return nil, err
	}
	rank := func(hs []Hit) map[string]int {
		out := make(map[string]int, len(hs))
		for i, h := range hs {
			out[h.ID] = i + 1
		}
		return out
	}
	vr, lr := rank(vec), rank(lex)
	out := make([]Candidate, len(order))
	for i, id := range order {
		out[i] = Candidate{ID: id, Cosine: mr.cos[id], Share: mr.share[id], Exact: slices.Contains(exact, id), VectorRank: vr[id], LexicalRank: lr[id]}
	}
	return out, nil
}
