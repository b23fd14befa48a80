package hnsw

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// insert links node u into the graph (Malkov and Yashunin, algorithm 1,
// with the neighbour-selection heuristic of their algorithm 4). u's code
// and level are set. With locked, other inserts run at the same time.
func (x *Index) insert(u uint32, s *scratch, locked bool) {
	if s == nil {
		s = x.getScratch()
		defer x.pool.Put(s)
	}
	L := int(x.level[u])
	if locked {
		x.epMu.Lock()
	}
	ep, top := x.entry, x.maxLevel
	if top < 0 {
		x.entry, x.maxLevel = u, L
	}
	if locked {
		x.epMu.Unlock()
	}
	if top < 0 {
		return
	}
	q, qs := x.code(u), x.scaleOf(u)
	cur := cand{x.sim(u, ep), ep}
	for lc := top; lc > L; lc-- {
		cur = x.greedy(s, q, qs, cur, lc, locked)
	}
	f := filter{x: x, self: u}
	eps := []cand{cur}
	for lc := min(L, top); lc >= 0; lc-- {
		x.searchLayer(s, q, qs, eps, x.opts.EfConstruction, lc, f, locked, 0)
		found := s.sortedRes()
		if len(found) == 0 {
			// Only u itself and dead nodes were reachable: keep
			// descending from where the search began.
			continue
		}
		sel := x.selectNeighbours(found, x.opts.M, s.sel[:0])
		s.sel = sel
		x.setList(u, lc, sel, locked)
		for _, e := range sel {
			x.addLink(e, u, lc, locked)
		}
		eps = append(eps[:0], found...)
	}
	if L > top {
		if locked {
			x.epMu.Lock()
		}
		if L > x.maxLevel {
			x.entry, x.maxLevel = u, L
		}
		if locked {
			x.epMu.Unlock()
		}
	}
}

// selectNeighbours keeps, from candidates sorted most similar first, those
// more similar to the query than to any already kept, up to m. Keeping
// diverse directions, not merely the nearest, is what lets a greedy walk
// cross between clusters.
func (x *Index) selectNeighbours(cands []cand, m int, out []uint32) []uint32 {
	for _, c := range cands {
		if len(out) >= m {
			break
		}
		good := true
		for _, r := range out {
			if x.sim(c.id, r) > c.sim {
				good = false
				break
			}
		}
		if good {
			out = append(out, c.id)
		}
	}
	return out
}

func (x *Index) capacity(lc int) int {
	if lc == 0 {
		return x.m0
	}
	return x.opts.M
}

func (x *Index) setList(u uint32, lc int, sel []uint32, locked bool) {
	if locked {
		mu := &x.locks[int(u)%len(x.locks)]
		mu.Lock()
		defer mu.Unlock()
	}
	l := x.list(u, lc)
	l[0] = uint32(copy(l[1:], sel))
}

// addLink adds u to e's list on layer lc; a full list is re-selected
// with the heuristic over its members and u.
func (x *Index) addLink(e, u uint32, lc int, locked bool) {
	if locked {
		mu := &x.locks[int(e)%len(x.locks)]
		mu.Lock()
		defer mu.Unlock()
	}
	l := x.list(e, lc)
	n := int(l[0])
	if slices.Contains(l[1:1+n], u) {
		return
	}
	if c := x.capacity(lc); n < c {
		l[1+n] = u
		l[0]++
		return
	}
	x.reselect(e, l, u)
}

// reselect refills list l of node e from its members plus extra (noNode:
// none), by the heuristic.
func (x *Index) reselect(e uint32, l []uint32, extra uint32) {
	n := int(l[0])
	members := make([]uint32, n, n+1)
	copy(members, l[1:1+n])
	if extra != noNode {
		members = append(members, extra)
	}
	x.fillFrom(e, l, members)
}

// relink moves node u, whose code has just changed, to where it now
// belongs. First its old neighbours that link back to it drop that link
// and take u's other old neighbours as candidates instead, so the region
// u leaves stays connected; then u is linked in afresh. Links to u from
// elsewhere remain: they are longer than they were, not wrong.
func (x *Index) relink(u uint32) {
	for lc := int(x.level[u]); lc >= 0; lc-- {
		lu := x.list(u, lc)
		old := slices.Clone(lu[1 : 1+lu[0]])
		for _, v := range old {
			l := x.list(v, lc)
			members := l[1 : 1+l[0]]
			i := slices.Index(members, u)
			if i < 0 {
				continue
			}
			members = slices.Delete(slices.Clone(members), i, i+1)
			for _, w := range old {
				if w != v && !slices.Contains(members, w) {
					members = append(members, w)
				}
			}
			x.fillFrom(v, l, members)
		}
	}
	x.insert(u, nil, false)
}

// fillFrom sets v's list l to the heuristic's pick of members.
func (x *Index) fillFrom(v uint32, l []uint32, members []uint32) {
	cs := make([]cand, 0, len(members))
	for _, w := range members {
		cs = append(cs, cand{x.sim(v, w), w})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		}
		return 0
	})
	var buf [2*maxM + 1]uint32
	sel := x.selectNeighbours(cs, len(l)-1, buf[:0])
	l[0] = uint32(copy(l[1:], sel))
}

// UpsertBatch upserts many vectors, linking new ids in parallel on
// GOMAXPROCS goroutines: the way to load a namespace. Replaced ids and
// new ids that reuse dead nodes go one at a time, in order. A later
// duplicate of an id in the batch wins. Every vector is checked before
// any is applied.
func (x *Index) UpsertBatch(ids []string, vecs [][]float32) error {
	return x.UpsertBatchContext(context.Background(), ids, vecs)
}

// UpsertBatchContext is UpsertBatch that stops with ctx's error when ctx
// is done (a build in the background of a process that is closing); the
// index is then partly linked, fit only to be dropped. An index that
// keeps floats keeps vecs' slices themselves, not copies (a build hands
// over a copy of a namespace's vectors, which a second copy would
// double): the caller must not change them after.
func (x *Index) UpsertBatchContext(ctx context.Context, ids []string, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("hnsw: %d ids, %d vectors", len(ids), len(vecs))
	}
	for i, v := range vecs {
		if len(v) != x.dim {
			return fmt.Errorf("%w: vector of %s has %d dimensions, index has %d", ErrDimension, ids[i], len(v), x.dim)
		}
	}
	last := make(map[string]int, len(ids))
	for i, id := range ids {
		last[id] = i
	}
	var fresh []uint32
	for i, id := range ids {
		if last[id] != i {
			continue
		}
		if _, ok := x.row[id]; ok || len(x.free) > 0 {
			_ = x.upsertOwned(id, vecs[i]) // checked above
			continue
		}
		if fresh == nil {
			x.Grow(len(ids) - i)
		}
		fresh = append(fresh, x.appendNode(id, vecs[i]))
	}
	return x.link(ctx, fresh)
}

// Compacted returns a new index with x's live vectors and options and no
// dead nodes, linked afresh from their codes (re-linking needs no float
// vectors). It only reads x, so it may run under the caller's read lock
// while searches go on; changes made to x meanwhile are not in the
// result, so the caller replays them (amem's kernel: the feed since the
// sequence number x reflected) before swapping it in. It stops with
// ctx's error when ctx is done.
//
// The policy: inserts reuse dead nodes, so they pile up only where a
// namespace shrinks; when NeedsCompaction reports true the caller builds
// a compacted copy in the background.
func (x *Index) Compacted(ctx context.Context) (*Index, error) {
	return x.CompactedLater()(ctx)
}

// CompactedLater is Compacted in two steps, for a caller that must not
// hold its read lock through a whole build (a writer waiting on a
// sync.RWMutex holds up new readers): it copies x's live codes now, under
// the caller's read lock, and returns the function that links the copy,
// which touches nothing of x and needs no lock.
func (x *Index) CompactedLater() func(ctx context.Context) (*Index, error) {
	y, _ := New(x.dim, &x.opts) // x's dimension and options are valid
	y.Grow(len(x.row))
	if x.keep {
		// The floats move by reference: y pins x's mappings until its own
		// float file replaces them.
		y.KeepFloats()
		y.pinned = append(slices.Clip(x.pinned), x.baseMap)
	}
	nodes := make([]uint32, 0, len(x.row))
	for u, id := range x.ids {
		if x.dead[u] {
			continue
		}
		v := y.appendNode(id, nil)
		copy(y.rows[int(v)*y.stride:(int(v)+1)*y.stride], x.rows[u*x.stride:(u+1)*x.stride])
		if f := x.floatsOf(uint32(u)); f != nil {
			y.side[v] = f
		}
		nodes = append(nodes, v)
	}
	return func(ctx context.Context) (*Index, error) {
		if err := y.link(ctx, nodes); err != nil {
			return nil, err
		}
		return y, nil
	}
}

// link inserts the given appended nodes, in parallel when there are
// enough of them to pay for it.
func (x *Index) link(ctx context.Context, nodes []uint32) error {
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 || len(nodes) < 256 {
		for i, u := range nodes {
			if i%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			x.insert(u, nil, false)
		}
		return nil
	}
	// Seed the graph serially so that the first parallel inserts do not
	// all race to become the entry point of an empty graph.
	seed := min(len(nodes), 64)
	for _, u := range nodes[:seed] {
		x.insert(u, nil, false)
	}
	nodes = nodes[seed:]
	if x.locks == nil {
		x.locks = make([]sync.Mutex, 1<<12)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &scratch{}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(nodes) || i%1024 == 0 && ctx.Err() != nil {
					return
				}
				x.insert(nodes[i], s, true)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}
