package lexindex

import (
	"math"
	"math/bits"
	"slices"
	"sync"
)

// BM25 parameters (FTS5's).
const (
	k1 = 1.2
	b  = 0.75
)

// maxQueryTerms bounds the distinct indexed terms a query uses, as the
// store bounded its FTS5 queries, so a pasted document costs a bounded
// query (and a contribution set fits a uint64 mask).
const maxQueryTerms = 64

// slack widens every pruning bound: a document is skipped only if even a
// score 1e-9 above its bound would lose, so float rounding in the bounds
// or in partial sums never drops a document the exhaustive ranking keeps.
const slack = 1 + 1e-9

// Stats count the work of one query.
type Stats struct {
	// Postings is the number of posting entries read, including each
	// probe of a skip.
	Postings int
	// Matched is the number of postings of the query's terms: what a
	// search without pruning reads.
	Matched int
	// Scored is the number of documents scored in full.
	Scored int
}

type qterm struct {
	t   uint32  // term ID
	idf float64 // Lucene's: see the package comment
	ub  float64 // bound on the term's score in any document
}

// searcher is one query's scratch, pooled so that a search allocates only
// its result.
type searcher struct {
	tok     tokenizer
	terms   []qterm
	order   []int     // term indices by ascending bound
	prefix  []float64 // prefix[i]: sum of the bounds of order[:i+1]
	lists   []list    // the postings of terms[order[i]]
	contrib [maxQueryTerms]float64
	heap    []entry
	at      []int     // the essential lists holding the candidate
	acc     []float64 // Exhaustive's accumulators, by doc number
	hits    []uint32  // Exhaustive's matched docs
}

// list is one query term's postings with a cursor, for MaxScore.
type list struct {
	docs []uint32
	tfs  []uint16
	pos  int
	idf  float64
	ub   float64
	o    uint // the term's place in the query: its contrib slot and mask bit
}

var searchers = sync.Pool{New: func() any { return new(searcher) }}

type entry struct {
	score float64
	doc   uint32
}

// prepare resolves the query's distinct terms, in query order (the order
// scores are summed in, by Search and Exhaustive alike, so that both give
// bit-identical scores), with their idf, and the parameters of the length
// norm K = kA + kB*len.
// The query is resolved already when terms is not nil (SearchTerms).
func (ix *Index) prepare(s *searcher, query string, terms []QueryTerm) (kA, kB float64) {
	s.terms = s.terms[:0]
	if ix.live == 0 {
		return
	}
	n := float64(ix.live)
	avgdl := float64(ix.totalLen) / n
	if avgdl == 0 {
		avgdl = 1
	}
	kA, kB = k1*(1-b), k1*b/avgdl
	add := func(t uint32) {
		if len(s.terms) == maxQueryTerms || ix.post[t].df == 0 {
			return
		}
		for _, q := range s.terms {
			if q.t == t {
				return
			}
		}
		df := float64(ix.post[t].df)
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		f := 0.0
		for _, p := range ix.post[t].sky {
			f = max(f, tfNorm(p.tf, kA+kB*float64(p.len)))
		}
		s.terms = append(s.terms, qterm{t: t, idf: idf, ub: idf * f * slack})
	}
	if terms != nil {
		for _, q := range terms {
			add(q.id)
		}
		return
	}
	s.tok.each(query, func(term []byte) {
		if t, ok := ix.termID[string(term)]; ok {
			add(t)
		}
	})
	return
}

// tfNorm is BM25's saturated term frequency for a length norm K.
func tfNorm(tf uint32, K float64) float64 {
	f := float64(tf)
	return f * (k1 + 1) / (f + K)
}

// Search returns the k best documents for query that allow passes (all,
// if allow is nil), best first, ties by ID. A document allow rejects
// never takes a place: allow is asked about each document that would
// enter the top k, and only those.
func (ix *Index) Search(query string, k int, allow func(id string) bool) []Hit {
	hits, _ := ix.SearchStats(query, k, allow)
	return hits
}

// SearchStats is Search, also counting its work.
//
// It is MaxScore (Turtle and Flood, 1995), document at a time: the query's
// terms, by ascending score bound, split into non-essential ones, whose
// bounds together can't reach the k-th best score so far, and essential
// ones. Only documents in an essential term's postings are candidates, and
// a candidate's non-essential terms are looked up (by galloping skips) only
// while its bound can still beat the k-th score. Question words, in most
// documents but with an idf near zero, go non-essential as soon as k
// documents are found, so their long postings are skipped through, not
// read.
func (ix *Index) SearchStats(query string, k int, allow func(id string) bool) ([]Hit, Stats) {
	return ix.search(query, nil, k, allow)
}

// SearchTerms is Search for a query resolved into terms already, by
// QueryTerms or TermsOf of this index, unchanged since.
func (ix *Index) SearchTerms(terms []QueryTerm, k int, allow func(id string) bool) []Hit {
	if len(terms) == 0 {
		return nil
	}
	hits, _ := ix.search("", terms, k, allow)
	return hits
}

func (ix *Index) search(query string, terms []QueryTerm, k int, allow func(id string) bool) ([]Hit, Stats) {
	var st Stats
	if k < 1 {
		return nil, st
	}
	s := searchers.Get().(*searcher)
	defer searchers.Put(s)
	kA, kB := ix.prepare(s, query, terms)
	n := len(s.terms)
	if n == 0 {
		return nil, st
	}
	s.order = s.order[:0]
	for i := range s.terms {
		s.order = append(s.order, i)
		st.Matched += len(ix.post[s.terms[i].t].docs)
	}
	slices.SortStableFunc(s.order, func(a, b int) int {
		return cmpFloat(s.terms[a].ub, s.terms[b].ub)
	})
	s.prefix = s.prefix[:0]
	s.lists = s.lists[:0]
	sum := 0.0
	for _, o := range s.order {
		q := s.terms[o]
		sum += q.ub
		s.prefix = append(s.prefix, sum*slack)
		p := &ix.post[q.t]
		s.lists = append(s.lists, list{docs: p.docs, tfs: p.tfs, idf: q.idf, ub: q.ub, o: uint(o)})
	}
	lists := s.lists
	h := topK{ix: ix, e: s.heap[:0], k: k}
	defer func() { s.heap = h.e[:0] }()
	firstEss := 0
	for {
		theta := h.theta()
		for firstEss < n && s.prefix[firstEss] < theta {
			firstEss++
		}
		d := uint32(math.MaxUint32)
		for i := firstEss; i < n; i++ {
			if l := &lists[i]; l.pos < len(l.docs) && l.docs[l.pos] < d {
				d = l.docs[l.pos]
			}
		}
		if d == math.MaxUint32 {
			break
		}
		// The essential lists holding d, and its bound from them and the
		// non-essential ones: a candidate that can't reach theta even so
		// is passed over before its length is read (a cache miss at
		// 100k notes, the loop's costliest load).
		s.at = s.at[:0]
		bound := 0.0
		if firstEss > 0 {
			bound = s.prefix[firstEss-1]
		}
		for i := firstEss; i < n; i++ {
			l := &lists[i]
			if j := l.pos; j < len(l.docs) && l.docs[j] == d {
				st.Postings++
				l.pos++
				s.at = append(s.at, i)
				bound += l.ub
			}
		}
		if !ix.alive[d] || bound*slack < theta {
			continue
		}
		K := kA + kB*float64(ix.docLen[d])
		var mask uint64
		partial := 0.0
		for _, i := range s.at {
			l := &lists[i]
			c := l.idf * tfNorm(uint32(l.tfs[l.pos-1]), K)
			s.contrib[l.o] = c
			mask |= 1 << l.o
			partial += c
		}
		pruned := false
		for i := firstEss - 1; i >= 0; i-- {
			if (partial+s.prefix[i])*slack < theta {
				pruned = true
				break
			}
			l := &lists[i]
			j := seek(l.docs, l.pos, d, &st.Postings)
			l.pos = j
			if j < len(l.docs) && l.docs[j] == d {
				c := l.idf * tfNorm(uint32(l.tfs[j]), K)
				s.contrib[l.o] = c
				mask |= 1 << l.o
				partial += c
			}
		}
		if pruned {
			continue
		}
		st.Scored++
		score := 0.0
		for m := mask; m != 0; m &= m - 1 {
			score += s.contrib[bits.TrailingZeros64(m)]
		}
		if !h.admits(score, d) || (allow != nil && !allow(ix.ids[d])) {
			continue
		}
		h.push(entry{score, d})
	}
	return h.result(), st
}

// seek returns the first index at or after i whose doc is >= d, galloping
// then bisecting, and adds the entries it reads to *touched.
func seek(docs []uint32, i int, d uint32, touched *int) int {
	if i >= len(docs) || docs[i] >= d {
		if i < len(docs) {
			*touched++
		}
		return i
	}
	*touched++
	lo, step := i, 1 // docs[lo] < d
	hi := lo + step
	for hi < len(docs) && docs[hi] < d {
		*touched++
		lo = hi
		step <<= 1
		hi = lo + step
	}
	hi = min(hi, len(docs)) // docs[hi] >= d, or hi is the end
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		*touched++
		if docs[mid] < d {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// Exhaustive is the reference for Search: it scores every live posting of
// the query's terms, term at a time, then keeps the k best that allow
// passes. Same arguments, same result.
func (ix *Index) Exhaustive(query string, k int, allow func(id string) bool) []Hit {
	hits, _ := ix.ExhaustiveStats(query, k, allow)
	return hits
}

// ExhaustiveStats is Exhaustive, also counting its work.
func (ix *Index) ExhaustiveStats(query string, k int, allow func(id string) bool) ([]Hit, Stats) {
	var st Stats
	if k < 1 {
		return nil, st
	}
	s := searchers.Get().(*searcher)
	defer searchers.Put(s)
	kA, kB := ix.prepare(s, query, nil)
	if len(s.terms) == 0 {
		return nil, st
	}
	if len(s.acc) < len(ix.ids) {
		s.acc = make([]float64, len(ix.ids))
	}
	acc := s.acc[:len(ix.ids)]
	s.hits = s.hits[:0]
	for _, q := range s.terms {
		p := &ix.post[q.t]
		st.Matched += len(p.docs)
		st.Postings += len(p.docs)
		for j, d := range p.docs {
			if !ix.alive[d] {
				continue
			}
			if acc[d] == 0 { // every contribution is > 0
				s.hits = append(s.hits, d)
			}
			acc[d] += q.idf * tfNorm(uint32(p.tfs[j]), kA+kB*float64(ix.docLen[d]))
		}
	}
	h := topK{ix: ix, e: s.heap[:0], k: k}
	for _, d := range s.hits {
		score := acc[d]
		acc[d] = 0
		st.Scored++
		if allow != nil && !allow(ix.ids[d]) {
			continue
		}
		if h.admits(score, d) {
			h.push(entry{score, d})
		}
	}
	s.heap = h.e[:0]
	return h.result(), st
}

// topK is a min-heap of the k best entries so far, worst on top.
type topK struct {
	ix *Index
	e  []entry
	k  int
}

func (h *topK) full() bool { return len(h.e) == h.k }

// theta is the score to reach to enter: the k-th best, or -Inf.
func (h *topK) theta() float64 {
	if !h.full() {
		return math.Inf(-1)
	}
	return h.e[0].score
}

// worse orders entries worst first: lower score, then higher ID.
func (h *topK) worse(a, b entry) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return h.ix.ids[a.doc] > h.ix.ids[b.doc]
}

// admits reports whether a document scoring score would enter.
func (h *topK) admits(score float64, d uint32) bool {
	return !h.full() || h.worse(h.e[0], entry{score, d})
}

func (h *topK) push(x entry) {
	if !h.full() {
		h.e = append(h.e, x)
		for i := len(h.e) - 1; i > 0; {
			p := (i - 1) / 2
			if !h.worse(h.e[i], h.e[p]) {
				break
			}
			h.e[i], h.e[p] = h.e[p], h.e[i]
			i = p
		}
		return
	}
	h.e[0] = x
	h.down(0, len(h.e))
}

func (h *topK) down(i, n int) {
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.worse(h.e[r], h.e[l]) {
			c = r
		}
		if !h.worse(h.e[c], h.e[i]) {
			return
		}
		h.e[i], h.e[c] = h.e[c], h.e[i]
		i = c
	}
}

// result empties the heap into hits, best first.
func (h *topK) result() []Hit {
	out := make([]Hit, len(h.e))
	for n := len(h.e); n > 0; n-- {
		top := h.e[0]
		out[n-1] = Hit{ID: h.ix.ids[top.doc], Score: top.score}
		h.e[0] = h.e[n-1]
		h.down(0, n-1)
	}
	h.e = h.e[:0]
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
