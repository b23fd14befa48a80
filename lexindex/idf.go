package lexindex

import "math"

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
	out, _ := ix.terms64(query)
	return out
}

// Terms is QueryTerms, also saying whether the index holds every term
// of text (false for text without terms): a name of two terms, one of
// which no note holds, is named by no note.
func (ix *Index) Terms(text string) ([]QueryTerm, bool) {
	return ix.terms64(text)
}

func (ix *Index) terms64(text string) (out []QueryTerm, all bool) {
	if ix.live == 0 {
		return nil, false
	}
	all = true
	seen := false
	var tok tokenizer
	n := float64(ix.live)
	tok.each(text, func(term []byte) {
		seen = true
		t, ok := ix.termID[string(term)]
		if !ok || ix.post[t].df == 0 {
			all = false
			return
		}
		if len(out) == maxQueryTerms {
			return
		}
		for _, q := range out {
			if q.Term == string(term) {
				return
			}
		}
		out = append(out, ix.queryTerm(t, n))
	})
	return out, all && seen
}

// queryTerm is term t of a query against n live documents.
func (ix *Index) queryTerm(t uint32, n float64) QueryTerm {
	df := float64(ix.post[t].df)
	return QueryTerm{Term: ix.terms[t], IDF: math.Log(1 + (n-df+0.5)/(df+0.5)), id: t}
}

// Tokenizer splits text into terms as the index does. It remembers the
// words it has seen, so it is cheap on text that repeats a vocabulary. It
// is not safe for concurrent use.
type Tokenizer struct{ t tokenizer }

// Each calls fn with every term of text, in order; term is only valid
// during the call.
func (t *Tokenizer) Each(text string, fn func(term []byte)) { t.t.each(text, fn) }
