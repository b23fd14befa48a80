package hnsw

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/amem-dev/amem/index"
)

// Rerank returns the float vectors of ids, in the same order, for exact
// re-ranking; they need not be normalised. A nil vector drops its id from
// the results (the caller's store no longer has it). amem's kernel
// answers it with one read of the candidates' embeddings.
type Rerank func(ids []string) ([][]float32, error)

// scratch is one search's working memory, pooled so that concurrent
// searches share nothing mutable.
type scratch struct {
	// seen is a bitset of the nodes visited in this search; dirty lists
	// the words set, for the next search to clear. A bit a node keeps it
	// within the L2 cache at a million nodes (128 KB), where a 16-bit
	// epoch a node (2.5 MB) missed it on most visits.
	seen  []uint64
	dirty []uint32
	cands bestHeap
	res   worstHeap
	q     []int8
	nb    []uint32 // a neighbour list copied out under its lock
	todo  []uint32 // a node's unvisited neighbours
	sel   []uint32
	pool  []cand
}

func (x *Index) getScratch() *scratch {
	s, _ := x.pool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	return s
}

// reset starts a new search over n nodes, clearing only the words of
// seen that the last one set.
func (s *scratch) reset(n int) {
	if words := (n + 63) / 64; len(s.seen) < words {
		s.seen = make([]uint64, words+words/4)
		s.dirty = s.dirty[:0]
	}
	for _, w := range s.dirty {
		s.seen[w] = 0
	}
	s.dirty = s.dirty[:0]
	s.cands = s.cands[:0]
	s.res = s.res[:0]
}

// visit marks u and reports whether it was unvisited.
func (s *scratch) visit(u uint32) bool {
	w := &s.seen[u>>6]
	bit := uint64(1) << (u & 63)
	if *w&bit != 0 {
		return false
	}
	if *w == 0 {
		s.dirty = append(s.dirty, u>>6)
	}
	*w |= bit
	return true
}

// filter decides which nodes may be results; the rest are still
// traversed.
type filter struct {
	x     *Index
	self  uint32 // never a result: the node being linked (or noNode)
	allow func(string) bool
	// any: every node may be a result (no self, no filter, no dead
	// nodes), so ok reads nothing: dead[u] was a cache miss per node a
	// search visits, 6% of a 1M search's time.
	any bool
}

const noNode = math.MaxUint32

// searchFilter is a search's filter: allow's ids (nil: all) among the
// live nodes.
func (x *Index) searchFilter(allow func(string) bool) filter {
	return filter{x: x, self: noNode, allow: allow, any: allow == nil && x.ndead == 0}
}

func (f filter) ok(u uint32) bool {
	if f.any {
		return true
	}
	if u == f.self || f.x.dead[u] {
		return false
	}
	return f.allow == nil || f.allow(f.x.ids[u])
}

// neighbours returns u's list on layer lc; when building in parallel it
// copies the list out under u's lock.
func (x *Index) neighbours(s *scratch, u uint32, lc int, locked bool) []uint32 {
	if !locked {
		l := x.list(u, lc)
		return l[1 : 1+l[0]]
	}
	mu := &x.locks[int(u)%len(x.locks)]
	mu.Lock()
	l := x.list(u, lc)
	s.nb = append(s.nb[:0], l[1:1+l[0]]...)
	mu.Unlock()
	return s.nb
}

// greedy walks layer lc from cur towards q, one best neighbour at a time,
// as the upper layers are searched.
func (x *Index) greedy(s *scratch, q []int8, qs float32, cur cand, lc int, locked bool) cand {
	for changed := true; changed; {
		changed = false
		for _, v := range x.neighbours(s, cur.id, lc, locked) {
			if d := x.simTo(q, qs, v); d > cur.sim {
				cur, changed = cand{d, v}, true
			}
		}
	}
	return cur
}

// searchLayer is the beam search of layer lc from eps: it leaves in s.res
// the ef nodes most similar to q that f accepts, and reports false if it
// stopped after visiting limit nodes (0: no limit).
func (x *Index) searchLayer(s *scratch, q []int8, qs float32, eps []cand, ef, lc int, f filter, locked bool, limit int) bool {
	s.reset(len(x.ids))
	for _, c := range eps {
		if s.visit(c.id) {
			s.cands.push(c)
			if f.ok(c.id) {
				s.res.offer(c, ef)
			}
		}
	}
	visited := len(eps)
	for len(s.cands) > 0 {
		c := s.cands.pop()
		if len(s.res) >= ef && c.sim < s.res.worst() {
			break
		}
		todo := s.todo[:0]
		for _, v := range x.neighbours(s, c.id, lc, locked) {
			if s.visit(v) {
				todo = append(todo, v)
			}
		}
		s.todo = todo
		if len(todo) > 0 {
			// Ask for every unvisited neighbour's whole row before
			// scoring any, so that their cache misses overlap. At 1M x
			// 512 (rows far beyond the caches) this cut the median search
			// from 570 to 350 µs; prefetching only a row's first lines
			// saved half as much.
			prefetchRows(&x.rows[0], x.stride, &todo[0], len(todo), (x.stride+63)/64)
		}
		if lc == 0 && len(s.cands) > 0 {
			// The best candidate left is most often the next one
			// expanded: its layer-0 list (132 bytes at M 16, another miss at
			// 1M nodes) arrives while this node's neighbours are scored.
			next := [1]uint32{s.cands[0].id}
			prefetchRows((*byte)(unsafe.Pointer(&x.links0[0])), 4*(x.m0+1), &next[0], 1, (4*(x.m0+1)+63)/64+1)
		}
		visited += len(todo)
		for _, v := range todo {
			d := x.simTo(q, qs, v)
			if len(s.res) < ef || d > s.res.worst() {
				s.cands.push(cand{d, v})
				if f.ok(v) {
					s.res.offer(cand{d, v}, ef)
				}
			}
		}
		if limit > 0 && visited > limit {
			return false
		}
	}
	return true
}

// sortedRes empties s.res into s.pool, most similar first.
func (s *scratch) sortedRes() []cand {
	s.pool = s.pool[:0]
	for len(s.res) > 0 {
		s.pool = append(s.pool, s.res.pop())
	}
	slices.Reverse(s.pool)
	return s.pool
}

// Search returns up to k live vectors most similar to query, best first
// (ties by ID). The query need not be normalised.
//
// If allow is non-nil only ids it accepts are returned; others are still
// traversed. A selective filter makes the graph search wander: when it
// has visited an eighth of the nodes (and at least 2000) without filling
// its pool, Search
// falls back to a scan of all codes, which is exact over the codes. The
// caller that knows its filter matches few ids should prefer SearchAmong
// (see the package doc for the rule).
//
// With rerank nil, scores are approximate cosines from the int8 codes.
// Otherwise Search takes the k*RerankFactor best approximate candidates,
// asks rerank for the float vectors of those within RerankMargin of the
// k-th and returns the k best by exact cosine.
func (x *Index) Search(query []float32, k int, allow func(id string) bool, rerank Rerank) ([]index.Hit, error) {
	if len(query) != x.dim {
		return nil, fmt.Errorf("%w: query has %d dimensions, index has %d", ErrDimension, len(query), x.dim)
	}
	if k <= 0 || len(x.row) == 0 {
		return nil, nil
	}
	want := k
	if rerank != nil {
		want = k * x.opts.RerankFactor
	}
	ef := max(x.opts.EfSearch, want)
	s := x.getScratch()
	defer x.pool.Put(s)
	s.q = slices.Grow(s.q[:0], x.dim)[:x.dim]
	qs := quantise(s.q, query)

	f := x.searchFilter(allow)
	cur := cand{x.simTo(s.q, qs, x.entry), x.entry}
	eps := []cand{cur}
	for lc := x.maxLevel; lc > 0; lc-- {
		if x.opts.UpperEf > 1 {
			x.searchLayer(s, s.q, qs, eps, x.opts.UpperEf, lc, x.searchFilter(nil), false, 0)
			eps = append(eps[:0], s.sortedRes()...)
		} else {
			eps[0] = x.greedy(s, s.q, qs, eps[0], lc, false)
		}
	}
	limit := 0
	if allow != nil || x.ndead > 0 {
		// Past this many visits a sequential scan of every code costs
		// less than the rest of a wandering search.
		limit = max(len(x.ids)/8, 2000)
	}
	complete := x.searchLayer(s, s.q, qs, eps, ef, 0, f, false, limit)
	if !complete || len(s.res) < min(want, len(x.row)) && (allow != nil || x.ndead > 0) {
		// The pool did not fill before the visit limit, or the graph
		// ran out first: scan instead.
		s.res = s.res[:0]
		for u := range x.ids {
			if f.ok(uint32(u)) {
				s.res.offer(cand{x.simTo(s.q, qs, uint32(u)), uint32(u)}, want)
			}
		}
	}
	for len(s.res) > want {
		s.res.pop()
	}
	return x.finish(s, query, k, rerank)
}

// SearchAmong returns up to k of ids (unknown ones skipped) most similar
// to query, best first: an exact scan of their codes, then, with rerank,
// exact cosine over the k*RerankFactor best. It is the answer for a
// filter that matches few notes, which the graph search handles badly.
func (x *Index) SearchAmong(query []float32, k int, ids []string, rerank Rerank) ([]index.Hit, error) {
	if len(query) != x.dim {
		return nil, fmt.Errorf("%w: query has %d dimensions, index has %d", ErrDimension, len(query), x.dim)
	}
	if k <= 0 {
		return nil, nil
	}
	want := k
	if rerank != nil {
		want = k * x.opts.RerankFactor
	}
	s := x.getScratch()
	defer x.pool.Put(s)
	s.q = slices.Grow(s.q[:0], x.dim)[:x.dim]
	qs := quantise(s.q, query)
	s.res = s.res[:0]
	s.reset(len(x.ids)) // ids may repeat
	for _, id := range ids {
		u, ok := x.row[id]
		if !ok || !s.visit(u) {
			continue
		}
		s.res.offer(cand{x.simTo(s.q, qs, u), u}, want)
	}
	return x.finish(s, query, k, rerank)
}

// finish turns the candidate pool in s.res into hits: the k best by
// approximate score, or by exact cosine over the whole pool with rerank.
func (x *Index) finish(s *scratch, query []float32, k int, rerank Rerank) ([]index.Hit, error) {
	pool := s.sortedRes()
	hits := make([]index.Hit, 0, len(pool))
	if rerank == nil {
		for _, c := range pool {
			hits = append(hits, index.Hit{ID: x.ids[c.id], Score: c.sim})
		}
		return topHits(hits, k), nil
	}
	if m := x.opts.RerankMargin; m > 0 && len(pool) > k {
		// pool is best first: keep those within the margin of the k-th.
		cut := pool[k-1].sim - m
		n := k
		for n < len(pool) && pool[n].sim >= cut {
			n++
		}
		pool = pool[:n]
	}
	// The floats the index keeps answer first; the caller is asked only
	// for the rest (none, once a float file is attached).
	q := index.Normalised(query)
	var ids []string
	for _, c := range pool {
		v := x.floatsOf(c.id)
		if v == nil {
			ids = append(ids, x.ids[c.id])
			continue
		}
		var score float32
		if n := index.Dot(v, v); n > 0 {
			score = index.Dot(q, v) / float32(math.Sqrt(float64(n)))
		}
		hits = append(hits, index.Hit{ID: x.ids[c.id], Score: score})
	}
	if len(ids) == 0 {
		return topHits(hits, k), nil
	}
	vecs, err := rerank(ids)
	if err != nil {
		return nil, fmt.Errorf("hnsw: rerank: %w", err)
	}
	if len(vecs) != len(ids) {
		return nil, fmt.Errorf("hnsw: rerank returned %d vectors for %d ids", len(vecs), len(ids))
	}
	for i, v := range vecs {
		if v == nil {
			continue
		}
		if len(v) != x.dim {
			return nil, fmt.Errorf("%w: rerank vector of %s has %d dimensions, index has %d", ErrDimension, ids[i], len(v), x.dim)
		}
		var score float32
		if n := index.Dot(v, v); n > 0 {
			score = index.Dot(q, v) / float32(math.Sqrt(float64(n)))
		}
		hits = append(hits, index.Hit{ID: ids[i], Score: score})
	}
	return topHits(hits, k), nil
}

// topHits sorts like index.Flat (score, then smaller ID first) and cuts
// to k.
func topHits(hits []index.Hit, k int) []index.Hit {
	slices.SortFunc(hits, func(a, b index.Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return hits[:min(k, len(hits))]
}
