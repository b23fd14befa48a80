// Package lexindex is an in-memory BM25 index over notes' text: content,
// context, keywords and tags, tokenised as SQLite FTS5's porter tokenizer
// over unicode61 with remove_diacritics (see tokenizer). It answers a query's top k with MaxScore dynamic pruning, so
// that the question words every note has ("what", "did", "the") cost a few
// skips instead of a pass over most of the index, with exactly the ranking
// an exhaustive BM25 gives (Exhaustive is the reference).
//
// Scoring is BM25 as FTS5's bm25() computes it with its default weights (a
// note is one document across its four fields: term frequencies summed
// over the fields, length the total of their tokens, except that where
// the context quotes the content the quotation counts once, with the
// content: quoteRun; k1 = 1.2, b = 0.75), except for idf, which is
// Lucene's, ln(1 + (N - n + 0.5) / (n + 0.5)), never negative.
// Statistics are those of this index alone, which in amem is one
// namespace: FTS5's idf, ln((N - n + 0.5) / (n + 0.5)) floored at
// 1e-6, gives nothing to a term in half the notes, such as the name of
// one of the two people of a conversation, which in a question about that
// person is signal (LoCoMo dev recall@10, per-namespace statistics: BM25
// 0.567 with FTS5's idf, 0.572 with Lucene's; amem 0.643 and 0.655).
// Scores are positive, higher better.
package lexindex

import (
	"math"
	"slices"
)

// Fields are the indexed text of one note.
type Fields struct {
	Content, Context string
	Keywords, Tags   []string
	// Names and Speaker are not indexed: they mark terms that Content
	// holds (InNames, InSpeaker; see Where), the names its text mentions
	// and who says it. A term of theirs that the fields do not hold is
	// not marked.
	Names   []string
	Speaker string
	// Traits are the caller's own bits for the document, kept and saved
	// with it and returned by Where (amem: what the ranker's question
	// kinds look for).
	Traits uint8
	// Time is the caller's time of the document, kept and saved with it
	// and returned by Next (amem: the event time, for the reply ranking).
	Time int64
}

// Hit is one search result.
type Hit struct {
	ID    string
	Score float64
}

// Index is a BM25 index of documents by ID. Documents get dense numbers
// in insertion order, so postings are appended in order and stay sorted;
// a removed or replaced document is a tombstone until a compaction, which
// runs once a quarter of the numbers are dead.
//
// It is not safe for concurrent use, except that Search and Exhaustive
// may run concurrently with each other: callers lock (like index.Flat).
type Index struct {
	termID map[string]uint32
	terms  []string // by term ID
	post   []postings
	ids    []string // by doc number
	alive  []bool   // by doc number; false for a tombstone
	docLen []uint32
	// info is, by doc number, Fields.Traits in the low byte and the
	// count of Content's terms above (DocInfo), saturating.
	info  []uint32
	times []uint64 // Fields.Time's bits, by doc number
	// order is the doc numbers by ID (order.go), tombstones included
	// until a compaction.
	order []uint32
	// docTerms are each live doc's distinct terms, sorted, each with the
	// marks of where it is: term ID<<whereBits | Where (where.go). They
	// serve removal and the ranker's per-note features.
	docTerms [][]uint32
	num      map[string]uint32
	live     int
	// withTrait counts the live documents whose Traits have each bit.
	withTrait [8]int
	totalLen  uint64
	dead      int
	entries   int // posting entries, tombstones' included

	tok  tokenizer
	bag  []uint32 // the current document's entries (see docTerms), with repeats
	ctx  []uint32 // the current document's context terms, as quoted finds them
	mark []uint32 // the current document's marked terms (Names, Speaker) the same way
	nums []uint32 // compaction's renumbering
}

// postings lists the documents holding one term, by doc number, with
// the term's frequency in each.
type postings struct {
	docs []uint32
	// tfs are uint16, saturating at 65535 (a term repeated so often in
	// one note scores as its BM25 limit anyway): half the bytes of a
	// posting's frequency, 130 of the 1,682 heap bytes a note that the
	// vector and full-text indexes held at 1M mix notes.
	tfs []uint16
	df  int // live documents in docs
	// sky bounds the term's BM25 factor for any average length: the
	// (tf, length) pairs of its postings that no other pair beats on both
	// (higher tf, shorter doc), merged pairwise when more than maxSky. It
	// counts tombstones until a compaction: a bound, never an exact max.
	sky []tfLen
}

type tfLen struct{ tf, len uint32 }

const maxSky = 8

// New returns an empty index.
func New() *Index {
	return &Index{termID: make(map[string]uint32), num: make(map[string]uint32)}
}

// Len returns the number of documents.
func (ix *Index) Len() int { return ix.live }

// Bytes estimates the memory the index holds, for a caller keeping
// indexes within a budget: each posting entry costs a doc number and a
// uint16 frequency in the term's list and a term number in the
// document's; each document and term about a map entry, an ID and slice
// headers.
func (ix *Index) Bytes() int64 {
	const perEntry, perDoc, perTerm = 10, 112, 96
	return int64(ix.entries)*perEntry + int64(len(ix.ids))*perDoc + int64(len(ix.terms))*perTerm
}

// Has reports whether id is indexed.
func (ix *Index) Has(id string) bool { _, ok := ix.num[id]; return ok }

// Upsert adds the document id, or replaces it.
func (ix *Index) Upsert(id string, f Fields) {
	ix.Remove(id)
	ix.bag, ix.mark = ix.bag[:0], ix.mark[:0]
	var w Where
	add := func(term []byte) {
		t, ok := ix.termID[string(term)]
		if !ok {
			t = uint32(len(ix.terms))
			if t > maxTermID {
				panic("lexindex: more than 2^28 distinct terms")
			}
			s := string(term)
			ix.termID[s] = t
			ix.terms = append(ix.terms, s)
			ix.post = append(ix.post, postings{})
		}
		ix.bag = append(ix.bag, t<<whereBits|uint32(w))
	}
	mark := func(term []byte) {
		if t, ok := ix.termID[string(term)]; ok {
			ix.mark = append(ix.mark, t<<whereBits|uint32(w))
		}
	}
	w = InContent
	ix.tok.each(f.Content, add)
	contentTerms := len(ix.bag)
	w = 0
	ix.eachUnquoted(f.Context, contentTerms, add)
	w = InKeywords
	for _, s := range f.Keywords {
		ix.tok.each(s, add)
	}
	w = 0
	for _, s := range f.Tags {
		ix.tok.each(s, add)
	}
	w = InNames
	for _, s := range f.Names {
		ix.tok.each(s, mark)
	}
	w = InSpeaker
	ix.tok.each(f.Speaker, mark)

	d := uint32(len(ix.ids))
	dl := uint32(len(ix.bag))
	slices.Sort(ix.bag)
	slices.Sort(ix.mark)
	distinct := make([]uint32, 0, len(ix.bag))
	m := 0 // next of ix.mark
	for i := 0; i < len(ix.bag); {
		t := ix.bag[i] >> whereBits
		e := ix.bag[i]
		j := i + 1
		for ; j < len(ix.bag) && ix.bag[j]>>whereBits == t; j++ {
			e |= ix.bag[j]
		}
		for ; m < len(ix.mark) && ix.mark[m]>>whereBits <= t; m++ {
			if ix.mark[m]>>whereBits == t {
				e |= ix.mark[m]
			}
		}
		p := &ix.post[t]
		p.docs = append(p.docs, d)
		tf := min(j-i, math.MaxUint16)
		p.tfs = append(p.tfs, uint16(tf))
		p.df++
		p.sky = addSky(p.sky, tfLen{uint32(tf), dl})
		distinct = append(distinct, e)
		i = j
	}
	ix.entries += len(distinct)
	ix.ids = append(ix.ids, id)
	ix.alive = append(ix.alive, true)
	ix.docLen = append(ix.docLen, dl)
	ix.info = append(ix.info, uint32(min(contentTerms, maxContentTerms))<<8|uint32(f.Traits))
	ix.times = append(ix.times, uint64(f.Time))
	ix.docTerms = append(ix.docTerms, distinct)
	ix.num[id] = d
	ix.place(id, d)
	ix.live++
	ix.countTraits(f.Traits, 1)
	ix.totalLen += uint64(dl)
}

func (ix *Index) countTraits(traits uint8, by int) {
	for bit := range ix.withTrait {
		if traits&(1<<bit) != 0 {
			ix.withTrait[bit] += by
		}
	}
}

// WithTraits counts the live documents whose Fields.Traits hold every
// bit of traits.
func (ix *Index) WithTraits(traits uint8) int {
	if traits == 0 {
		return ix.live
	}
	if traits&(traits-1) == 0 { // one bit: counted as documents change
		for bit := range ix.withTrait {
			if traits == 1<<bit {
				return ix.withTrait[bit]
			}
		}
	}
	n := 0
	for d, alive := range ix.alive {
		if alive && uint8(ix.info[d])&traits == traits {
			n++
		}
	}
	return n
}

// Remove deletes id, if indexed.
func (ix *Index) Remove(id string) {
	d, ok := ix.num[id]
	if !ok {
		return
	}
	delete(ix.num, id)
	for _, e := range ix.docTerms[d] {
		ix.post[e>>whereBits].df--
	}
	ix.docTerms[d] = nil
	ix.alive[d] = false
	ix.live--
	ix.countTraits(uint8(ix.info[d]), -1)
	ix.totalLen -= uint64(ix.docLen[d])
	ix.dead++
	if ix.dead >= 64 && ix.dead*4 >= len(ix.ids) {
		ix.Compact()
	}
}

// Compact drops tombstones: documents are renumbered densely (in the same
// order, so postings stay sorted), terms no live document holds are
// forgotten, and the bounds are recomputed from live postings only.
func (ix *Index) Compact() {
	if ix.dead == 0 {
		return
	}
	const gone = ^uint32(0)
	ix.nums = slices.Grow(ix.nums[:0], len(ix.ids))[:len(ix.ids)]
	n := uint32(0)
	for d, id := range ix.ids {
		if !ix.alive[d] {
			ix.nums[d] = gone
			continue
		}
		ix.nums[d] = n
		ix.ids[n] = id
		ix.alive[n] = true
		ix.docLen[n] = ix.docLen[d]
		ix.info[n] = ix.info[d]
		ix.times[n] = ix.times[d]
		ix.docTerms[n] = ix.docTerms[d]
		ix.num[id] = n
		n++
	}
	clear(ix.ids[n:])
	clear(ix.docTerms[n:])
	ix.ids, ix.alive, ix.docLen, ix.info, ix.times, ix.docTerms = ix.ids[:n], ix.alive[:n], ix.docLen[:n], ix.info[:n], ix.times[:n], ix.docTerms[:n]
	k := 0
	for _, d := range ix.order {
		if nd := ix.nums[d]; nd != gone {
			ix.order[k] = nd
			k++
		}
	}
	ix.order = ix.order[:k]

	newID := make([]uint32, len(ix.terms))
	nt := uint32(0)
	ix.entries = 0
	for t := range ix.terms {
		p := ix.post[t]
		if p.df == 0 {
			delete(ix.termID, ix.terms[t])
			continue
		}
		k := 0
		p.sky = p.sky[:0]
		for i, d := range p.docs {
			nd := ix.nums[d]
			if nd == gone {
				continue
			}
			p.docs[k], p.tfs[k] = nd, p.tfs[i]
			p.sky = addSky(p.sky, tfLen{uint32(p.tfs[i]), ix.docLen[nd]})
			k++
		}
		p.docs, p.tfs = slices.Clip(p.docs[:k]), slices.Clip(p.tfs[:k])
		ix.entries += k
		newID[t] = nt
		ix.post[nt] = p
		ix.terms[nt] = ix.terms[t]
		ix.termID[ix.terms[nt]] = nt
		nt++
	}
	clear(ix.post[nt:])
	clear(ix.terms[nt:])
	ix.post, ix.terms = ix.post[:nt], ix.terms[:nt]
	for _, ts := range ix.docTerms {
		for i, e := range ts {
			ts[i] = newID[e>>whereBits]<<whereBits | e&whereMask
		}
	}
	ix.dead = 0
}

// addSky adds p to the skyline s unless a pair there beats it on both
// counts, dropping the pairs p beats. Past maxSky pairs, the two closest
// in tf merge into one that beats both (the higher tf, the shorter
// length): the bound loosens, never breaks.
func addSky(s []tfLen, p tfLen) []tfLen {
	k := 0
	for _, q := range s {
		if q.tf >= p.tf && q.len <= p.len {
			return s
		}
		if !(p.tf >= q.tf && p.len <= q.len) {
			s[k] = q
			k++
		}
	}
	s = append(s[:k], p)
	if len(s) <= maxSky {
		return s
	}
	slices.SortFunc(s, func(a, b tfLen) int { return int(a.tf) - int(b.tf) })
	best := 0
	for i := 1; i+1 < len(s); i++ {
		if s[i+1].tf-s[i].tf < s[best+1].tf-s[best].tf {
			best = i
		}
	}
	s[best] = tfLen{s[best+1].tf, min(s[best].len, s[best+1].len)}
	return slices.Delete(s, best+1, best+2)
}

// quoteRun is the shortest run of terms, in the content's order, that a
// context quotes rather than names: such a run is the content's own text,
// counted with the content and not again with the context. A curator's
// context may quote the note's first clause after naming its subject
// ("A fact about Ben: Ben's dentist is Dr. Okafor ..."); counted twice,
// the quotation doubled its terms' frequencies, which cost full-text
// search on LoCoMo's facts (held-out recall@10 0.794 -> 0.779: measured,
// the doubled frequencies cost it, not the longer notes). A shorter run
// is a keyword or a name the context names ("about Caroline", "about
// LGBTQ support group": the offline curator's phrases are at most four
// words), and counts.
const quoteRun = 5

// eachUnquoted calls fn with each term of context that is not inside a
// quotation of the content, whose terms are the first n entries of
// ix.bag, in order.
func (ix *Index) eachUnquoted(context string, n int, fn func(term []byte)) {
	if context == "" {
		return
	}
	const unknown, quoted = ^uint32(0), ^uint32(0) - 1 // past maxTermID
	ix.ctx = ix.ctx[:0]
	ix.tok.each(context, func(term []byte) {
		t, ok := ix.termID[string(term)]
		if !ok {
			t = unknown
		}
		ix.ctx = append(ix.ctx, t)
	})
	content := ix.bag[:n]
	for i := 0; i < len(ix.ctx); {
		run := 0
		for j := range content {
			k := 0
			for i+k < len(ix.ctx) && j+k < len(content) && ix.ctx[i+k] == content[j+k]>>whereBits {
				k++
			}
			run = max(run, k)
		}
		if run < quoteRun {
			run = 1
		} else {
			for k := i; k < i+run; k++ {
				ix.ctx[k] = quoted
			}
		}
		i += run
	}
	i := 0
	ix.tok.each(context, func(term []byte) {
		if ix.ctx[i] != quoted {
			fn(term)
		}
		i++
	})
}
