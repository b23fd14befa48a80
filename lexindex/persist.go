package lexindex

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/amem-dev/amem/internal/crcio"
)

// The file format, version 3, little-endian throughout, so that a large
// namespace's full-text index can be read back in a fraction of the time
// re-tokenising its notes takes:
//
//	magic       "AMEMLEX3"
//	header      u32 version, docs, terms; u64 id bytes, term bytes,
//	            posting entries, sky pairs
//	header sum  u32 CRC-32C of magic and header
//	docs        per doc number: u32 id length (0: a tombstone), then the
//	            ids' bytes, then per doc u32 length in tokens
//	terms       per term: u32 length, then the terms' bytes
//	postings    per term: u32 entries, u32 sky pairs; then every term's
//	            u32 doc numbers, u16 frequencies, u32 sky pairs (tf, len)
//	info        per doc number u32: Traits, and Content's terms << 8
//	marks       per live doc, per distinct term in term order, u8 Where
//	times       per doc number i64 Time
//	order       the live docs' numbers in ID order, u32 each
//	checksum    u32 CRC-32C of everything before it
//
// Each live document's distinct terms, the live count, total length and
// document frequencies are rebuilt from the postings. Version 2 had no
// aux and marks; a file of it is rejected, and amem rebuilds it.

const (
	magic   = "AMEMLEX3"
	version = 3
)

// ErrCorrupt is returned by Read when its input is not a valid index.
var ErrCorrupt = errors.New("lexindex: corrupt index")

// WriteTo writes the index to w in the format Read reads. It only reads
// the index, so it may run under the caller's read lock, alongside
// searches.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	cw := crcio.NewWriter(w)
	var idBytes, termBytes, entries, sky uint64
	for d, id := range ix.ids {
		if ix.alive[d] {
			idBytes += uint64(len(id))
		}
	}
	for t, s := range ix.terms {
		termBytes += uint64(len(s))
		entries += uint64(len(ix.post[t].docs))
		sky += uint64(len(ix.post[t].sky))
	}
	cw.String(magic)
	cw.U32(version)
	cw.U32(uint32(len(ix.ids)))
	cw.U32(uint32(len(ix.terms)))
	for _, v := range []uint64{idBytes, termBytes, entries, sky} {
		cw.U64(v)
	}
	cw.U32(cw.Sum())
	for d, id := range ix.ids {
		if ix.alive[d] {
			cw.U32(uint32(len(id)))
		} else {
			cw.U32(0)
		}
	}
	for d, id := range ix.ids {
		if ix.alive[d] {
			cw.String(id)
		}
	}
	cw.U32s(ix.docLen)
	for _, s := range ix.terms {
		cw.U32(uint32(len(s)))
	}
	for _, s := range ix.terms {
		cw.String(s)
	}
	for _, p := range ix.post {
		cw.U32(uint32(len(p.docs)))
		cw.U32(uint32(len(p.sky)))
	}
	for _, p := range ix.post {
		cw.U32s(p.docs)
		cw.U16s(p.tfs)
		for _, s := range p.sky {
			cw.U32(s.tf)
			cw.U32(s.len)
		}
	}
	cw.U32s(ix.info)
	var marks []byte
	for d, es := range ix.docTerms {
		if !ix.alive[d] {
			continue
		}
		marks = marks[:0]
		for _, e := range es {
			marks = append(marks, byte(e&whereMask))
		}
		cw.Bytes(marks)
	}
	cw.U64s(ix.times)
	live := make([]uint32, 0, ix.live)
	for _, d := range ix.order {
		if ix.alive[d] {
			live = append(live, d)
		}
	}
	cw.U32s(live)
	cw.U32(cw.Sum())
	return cw.Flush()
}

// Read reads an index written by WriteTo. Input that is not a valid
// index, truncated or damaged, is an error wrapping ErrCorrupt, never a
// panic.
func Read(r io.Reader) (*Index, error) {
	cr := crcio.NewReader(r)
	var head [len(magic)]byte
	cr.Full(head[:])
	ver, ndocs, nterms := cr.U32(), int(cr.U32()), int(cr.U32())
	idBytes, termBytes, entries, nsky := cr.U64(), cr.U64(), cr.U64(), cr.U64()
	sum := cr.Sum()
	if cr.Err() != nil || string(head[:]) != magic {
		return nil, fmt.Errorf("%w: not an index file", ErrCorrupt)
	}
	if cr.U32() != sum {
		return nil, fmt.Errorf("%w: header checksum mismatch", ErrCorrupt)
	}
	if ver != version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, ver, version)
	}
	if ndocs > math.MaxInt32 || nterms > math.MaxInt32 || idBytes > 1<<40 || termBytes > 1<<40 ||
		entries > 1<<40 || nsky > uint64(nterms)*maxSky {
		return nil, fmt.Errorf("%w: header out of range", ErrCorrupt)
	}

	idLens := make([]uint32, ndocs)
	cr.U32s(idLens)
	idBlob := make([]byte, idBytes)
	cr.Full(idBlob)
	docLen := make([]uint32, ndocs)
	cr.U32s(docLen)
	termLens := make([]uint32, nterms)
	cr.U32s(termLens)
	termBlob := make([]byte, termBytes)
	cr.Full(termBlob)
	counts := make([]uint32, 2*nterms)
	cr.U32s(counts)
	var total, totalSky uint64
	for t := range nterms {
		total += uint64(counts[2*t])
		totalSky += uint64(counts[2*t+1])
		if counts[2*t+1] > maxSky {
			return nil, fmt.Errorf("%w: term %d has %d bounds", ErrCorrupt, t, counts[2*t+1])
		}
	}
	if cr.Err() != nil {
		return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	if total != entries || totalSky != nsky {
		return nil, fmt.Errorf("%w: postings do not add up", ErrCorrupt)
	}
	// Postings in two blocks (doc numbers, frequencies) that each term's
	// lists are windows of: two allocations, not two per term.
	docs := make([]uint32, entries)
	tfs := make([]uint16, entries)
	skies := make([]tfLen, nsky)
	ix := New()
	ix.post = make([]postings, nterms)
	var off, skyOff uint64
	for t := range nterms {
		k, ks := uint64(counts[2*t]), uint64(counts[2*t+1])
		p := &ix.post[t]
		p.docs = docs[off : off+k : off+k]
		p.tfs = tfs[off : off+k : off+k]
		cr.U32s(p.docs)
		cr.U16s(p.tfs)
		p.sky = skies[skyOff : skyOff+ks : skyOff+ks]
		for i := range p.sky {
			p.sky[i] = tfLen{cr.U32(), cr.U32()}
		}
		off += k
		skyOff += ks
	}
	info := make([]uint32, ndocs)
	cr.U32s(info)
	if cr.Err() != nil {
		return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	// Each live document's count of distinct terms, which the marks
	// follow.
	per := make([]uint32, ndocs)
	var live uint64
	for t := range ix.post {
		p := &ix.post[t]
		prev := -1
		for i, d := range p.docs {
			if int(d) <= prev || int(d) >= ndocs || p.tfs[i] == 0 {
				return nil, fmt.Errorf("%w: term %d postings out of order or range", ErrCorrupt, t)
			}
			prev = int(d)
			if idLens[d] != 0 {
				per[d]++
				p.df++
				live++
			}
		}
	}
	marks := make([]byte, live)
	cr.Full(marks)
	times := make([]uint64, ndocs)
	cr.U64s(times)
	nlive := 0
	for _, n := range idLens {
		if n != 0 {
			nlive++
		}
	}
	order := make([]uint32, nlive)
	cr.U32s(order)
	sum = cr.Sum()
	if got := cr.U32(); cr.Err() != nil || got != sum {
		if cr.Err() != nil {
			return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}

	// One string holds every id and one every term; each is a substring,
	// which saves an allocation apiece.
	ids, terms := string(idBlob), string(termBlob)
	ix.ids = make([]string, ndocs)
	ix.alive = make([]bool, ndocs)
	ix.docLen = docLen
	ix.info = info
	ix.times = times
	ix.docTerms = make([][]uint32, ndocs)
	ix.num = make(map[string]uint32, ndocs)
	var at uint64
	for d, n := range idLens {
		if uint64(n) > idBytes-at {
			return nil, fmt.Errorf("%w: ids short", ErrCorrupt)
		}
		if n == 0 {
			ix.dead++
			continue
		}
		id := ids[at : at+uint64(n)]
		at += uint64(n)
		if _, dup := ix.num[id]; dup {
			return nil, fmt.Errorf("%w: id %q twice", ErrCorrupt, id)
		}
		ix.ids[d], ix.alive[d], ix.num[id] = id, true, uint32(d)
		ix.live++
		ix.countTraits(uint8(info[d]), 1)
		ix.totalLen += uint64(docLen[d])
	}
	if at != idBytes {
		return nil, fmt.Errorf("%w: ids do not add up", ErrCorrupt)
	}
	ix.terms = make([]string, nterms)
	ix.termID = make(map[string]uint32, nterms)
	at = 0
	for t, n := range termLens {
		if uint64(n) > termBytes-at || n == 0 {
			return nil, fmt.Errorf("%w: term %d out of range", ErrCorrupt, t)
		}
		s := terms[at : at+uint64(n)]
		at += uint64(n)
		if _, dup := ix.termID[s]; dup {
			return nil, fmt.Errorf("%w: term %q twice", ErrCorrupt, s)
		}
		ix.terms[t], ix.termID[s] = s, uint32(t)
	}
	if at != termBytes {
		return nil, fmt.Errorf("%w: terms do not add up", ErrCorrupt)
	}
	// Each live document's distinct terms, in term order as Upsert
	// leaves them, in one block; then their marks, in the same order.
	block := make([]uint32, 0, live)
	for d, n := range per {
		if n > 0 {
			ix.docTerms[d] = block[len(block) : len(block) : len(block)+int(n)]
			block = block[:len(block)+int(n)]
		}
	}
	for t := range ix.post {
		for _, d := range ix.post[t].docs {
			if ix.alive[d] {
				ix.docTerms[d] = append(ix.docTerms[d], uint32(t)<<whereBits)
			}
		}
	}
	at = 0
	for d, es := range ix.docTerms {
		if !ix.alive[d] {
			continue
		}
		for i := range es {
			if marks[at]&^whereMask != 0 {
				return nil, fmt.Errorf("%w: doc %d term marks %#x", ErrCorrupt, d, marks[at])
			}
			es[i] |= uint32(marks[at])
			at++
		}
	}
	// The order: every live doc once, by strictly rising ID.
	for i, d := range order {
		if int(d) >= ndocs || !ix.alive[d] || i > 0 && ix.ids[order[i-1]] >= ix.ids[d] {
			return nil, fmt.Errorf("%w: ID order broken at %d", ErrCorrupt, i)
		}
	}
	ix.order = order
	ix.entries = int(entries)
	return ix, nil
}
