package lexindex

import (
	"math"
	"slices"
)

// What a learned ranker reads of the index: a query's terms with the idf
// its BM25 gives them, and whether a note holds a term, so that its
// overlap features weigh words exactly as the full-text ranking does.

// QueryTerm is one distinct term of a query that the index holds.
type QueryTerm struct {
	Term string
	// IDF is Lucene's, from the index's live documents, as Search uses.
	IDF float64
	id  uint32 // valid for the index that returned it, until it changes
}

// QueryTerms returns the distinct terms of query that some live document
// holds, in query order, with their idf; at most the 64 Search reads.
func (ix *Index) QueryTerms(query string) []QueryTerm {
	if ix.live == 0 {
		return nil
	}
	var out []QueryTerm
	var tok tokenizer
	n := float64(ix.live)
	tok.each(query, func(term []byte) {
		if len(out) == maxQueryTerms {
			return
		}
		t, ok := ix.termID[string(term)]
		if !ok || ix.post[t].df == 0 {
			return
		}
		for _, q := range out {
			if q.Term == string(term) {
				return
			}
		}
		df := float64(ix.post[t].df)
		out = append(out, QueryTerm{Term: string(term), IDF: math.Log(1 + (n-df+0.5)/(df+0.5)), id: t})
	})
	return out
}

// Holds reports whether the document id holds term in any of its fields.
func (ix *Index) Holds(id, term string) bool {
	d, ok := ix.num[id]
	if !ok {
		return false
	}
	t, ok := ix.termID[term]
	if !ok {
		return false
	}
	_, found := slices.BinarySearch(ix.docTerms[d], t)
	return found
}

// Holding returns which of terms, as QueryTerms returned them from this
// index unchanged since, the document id holds in any of its fields: bit
// i for terms[i]. It is Holds for a whole query at the cost of one
// lookup of the document.
func (ix *Index) Holding(id string, terms []QueryTerm) uint64 {
	d, ok := ix.num[id]
	if !ok {
		return 0
	}
	var mask uint64
	for i, t := range terms[:min(len(terms), maxQueryTerms)] {
		if _, found := slices.BinarySearch(ix.docTerms[d], t.id); found {
			mask |= 1 << i
		}
	}
	return mask
}

// Tokenizer splits text into terms as the index does. It remembers the
// words it has seen, so it is cheap on text that repeats a vocabulary. It
// is not safe for concurrent use.
type Tokenizer struct{ t tokenizer }

// Each calls fn with every term of text, in order; term is only valid
// during the call.
func (t *Tokenizer) Each(text string, fn func(term []byte)) { t.t.each(text, fn) }
