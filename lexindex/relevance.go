package lexindex

import (
	"math"
	"slices"
)

// What a search needs of the index beyond its top k: the BM25 score of
// notes another ranking found, the scale that turns a score into a share
// of the query, and the notes whose content is the query itself.

// Query is a query resolved against the index once: its terms with their
// idf and frequency in the query, and its length in terms. It is valid
// until the index changes.
type Query struct {
	terms []qterm
	tfs   []uint32 // by terms
	// all is the number of the query's terms, repeats counted and
	// unknown ones included.
	all     int
	unknown bool // some term no live note holds
	// distinct are the query's distinct terms that some note holds, all
	// of them, in query order: terms and tfs are the first 64.
	distinct []uint32
	self     float64
	kA, kB   float64
}

// Resolve reads query against the index. Its scores use the first 64
// distinct terms that some note holds, as Search does.
func (ix *Index) Resolve(query string) *Query {
	q := &Query{}
	n := float64(ix.live)
	avgdl := 1.0
	if ix.live > 0 && ix.totalLen > 0 {
		avgdl = float64(ix.totalLen) / n
	}
	q.kA, q.kB = k1*(1-b), k1*b/avgdl
	var tok tokenizer
	var unknown []string
	var unknownTF []uint32
	at := map[uint32]int{} // a known term's place in distinct
	tok.each(query, func(term []byte) {
		q.all++
		t, ok := ix.termID[string(term)]
		if !ok || ix.post[t].df == 0 {
			q.unknown = true
			if i := slices.Index(unknown, string(term)); i >= 0 {
				unknownTF[i]++
			} else if len(unknown) < maxQueryTerms {
				unknown = append(unknown, string(term))
				unknownTF = append(unknownTF, 1)
			}
			return
		}
		if i, ok := at[t]; ok {
			if i < len(q.tfs) {
				q.tfs[i]++
			}
			return
		}
		at[t] = len(q.distinct)
		q.distinct = append(q.distinct, t)
		if len(q.terms) < maxQueryTerms {
			df := float64(ix.post[t].df)
			q.terms = append(q.terms, qterm{t: t, idf: math.Log(1 + (n-df+0.5)/(df+0.5))})
			q.tfs = append(q.tfs, 1)
		}
	})
	// A term no note holds weighs what a term of one note would: the
	// query asks for it, and no note matches that part of it.
	unknownIDF := math.Log(1 + (n-1+0.5)/(1+0.5))
	for i, x := range q.terms {
		q.self += x.idf * tfNorm(q.tfs[i], k1)
	}
	for _, tf := range unknownTF {
		q.self += unknownIDF * tfNorm(tf, k1)
	}
	return q
}

// Self is the score that the query's own terms would get as a note of
// the index's average length: the scale of Share.
func (q *Query) Self() float64 { return q.self }

// Score is the BM25 score of the document id for the query, as Search
// computes it; 0 for a document not indexed or holding none of its terms.
func (ix *Index) Score(q *Query, id string) float64 {
	d, ok := ix.num[id]
	if !ok || !ix.alive[d] {
		return 0
	}
	K := q.kA + q.kB*float64(ix.docLen[d])
	score := 0.0
	for _, x := range q.terms {
		if _, held := find(ix.docTerms[d], x.t); !held {
			continue
		}
		p := &ix.post[x.t]
		if j, found := slices.BinarySearch(p.docs, d); found {
			score += x.idf * tfNorm(uint32(p.tfs[j]), K)
		}
	}
	return score
}

// Share is a BM25 score as a share of the query, in [0, 1]: the score
// over Self, at most 1. A note of average length that holds each term
// as often as the query does has 1; one that holds none of its terms, 0.
// Terms no note holds count in Self, so a query half made of them is
// matched at most about half.
func (q *Query) Share(score float64) float64 {
	if q.self <= 0 {
		return 0
	}
	return min(1, score/q.self)
}

// SameContent returns the live documents, in index order, whose content
// has the query's terms: as many terms, repeats counted, and the same
// distinct ones (in any order). These are the notes whose content the
// query is, word for word, case and punctuation aside, which a search
// puts first. allow, if not nil, must pass each.
func (ix *Index) SameContent(q *Query, allow func(id string) bool) []string {
	if q.all == 0 || len(q.distinct) == 0 || q.unknown {
		return nil // a term no note holds: no note's content is the query
	}
	rarest := q.distinct[0]
	for _, t := range q.distinct[1:] {
		if ix.post[t].df < ix.post[rarest].df {
			rarest = t
		}
	}
	var out []string
	for _, d := range ix.post[rarest].docs {
		if !ix.alive[d] || int(ix.info[d]>>8) != q.all {
			continue
		}
		distinct := 0
		for _, e := range ix.docTerms[d] {
			if Where(e&whereMask)&InContent != 0 {
				distinct++
			}
		}
		held := distinct == len(q.distinct)
		for _, t := range q.distinct {
			if e, ok := find(ix.docTerms[d], t); !ok || Where(e&whereMask)&InContent == 0 {
				held = false
				break
			}
		}
		if held && (allow == nil || allow(ix.ids[d])) {
			out = append(out, ix.ids[d])
		}
	}
	return out
}
