package lexindex

import "slices"

// Where a document holds a term, beyond holding it, kept in the low bits
// of each entry of its distinct terms: what a learned ranker's per-note
// features read (amem's search/conversation/features.go), so that they need no copy of
// the notes' text. At 1M notes a copy of each note's term sets and
// keywords cost about 950 heap bytes a note; the marks cost none, and
// DocInfo four bytes.
type Where uint8

const (
	InContent  Where = 1 << iota // a term of Fields.Content
	InKeywords                   // of Fields.Keywords
	InNames                      // of Fields.Names
	InSpeaker                    // of Fields.Speaker
	// Held is set by Index.Where for every term the document holds, in
	// whichever field.
	Held Where = 1 << 7
)

const (
	whereBits = 4
	whereMask = 1<<whereBits - 1
	// maxTermID bounds a term ID so that an entry's ID and marks share a
	// uint32: 268M distinct terms, far past what memory holds at about
	// 100 bytes a term.
	maxTermID = 1<<(32-whereBits) - 1
)

// find returns the entry of term t among a document's entries.
func find(entries []uint32, t uint32) (uint32, bool) {
	i, _ := slices.BinarySearch(entries, t<<whereBits)
	if i < len(entries) && entries[i]>>whereBits == t {
		return entries[i], true
	}
	return 0, false
}

// DocInfo is what Where tells of a document beside its terms.
type DocInfo struct {
	Traits uint8 // Fields.Traits
	// ContentTerms is the number of terms in Fields.Content, repeats
	// counted, saturating at 2^24-1.
	ContentTerms int
}

const maxContentTerms = 1<<24 - 1

// Where writes to out[i] where the document id holds terms[i] (as
// QueryTerms or Terms returned it from this index, unchanged since): Held
// and its marks, or 0. It returns the document's DocInfo, and false if id
// is not indexed (out is then all 0). out must be as long as terms.
func (ix *Index) Where(id string, terms []QueryTerm, out []Where) (DocInfo, bool) {
	clear(out)
	d, ok := ix.num[id]
	if !ok {
		return DocInfo{}, false
	}
	for i, t := range terms {
		if e, found := find(ix.docTerms[d], t.id); found {
			out[i] = Held | Where(e&whereMask)
		}
	}
	info := ix.info[d]
	return DocInfo{Traits: uint8(info), ContentTerms: int(info >> 8)}, true
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
	_, found := find(ix.docTerms[d], t)
	return found
}

// TermsOf appends to terms the terms the document id holds with any of
// the marks w, in term order, skipping those terms already holds, up to
// the 64 a query reads; nothing if id is not indexed. The feedback
// ranking reads the first hits' keywords so, as the query of
// SearchTerms.
func (ix *Index) TermsOf(terms []QueryTerm, id string, w Where) []QueryTerm {
	d, ok := ix.num[id]
	if !ok {
		return terms
	}
	n := float64(ix.live)
next:
	for _, e := range ix.docTerms[d] {
		if Where(e&whereMask)&w == 0 {
			continue
		}
		if len(terms) == maxQueryTerms {
			break
		}
		t := e >> whereBits
		for _, q := range terms {
			if q.id == t {
				continue next
			}
		}
		terms = append(terms, ix.queryTerm(t, n))
	}
	return terms
}
