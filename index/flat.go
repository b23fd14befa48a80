// Package index holds amem's in-memory vector indexes.
//
// Flat is exact cosine search over one contiguous float32 block: every
// vector is L2-normalised on insert, so cosine is a dot product, and a scan
// reads memory strictly in order. Above a size threshold the scan is split
// into sub-slices across goroutines, each with its own top-k heap, merged
// at the end.
package index

import (
	"container/heap"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/amem-dev/amem/internal/hugepage"
)

// Hit is one search result.
type Hit struct {
	ID    string
	Score float32 // cosine similarity
}

// Flat is an exact cosine index of fixed dimension.
// It is not safe for concurrent use: callers lock (the kernel holds a
// read-write lock per namespace).
type Flat struct {
	dim  int
	data []float32 // len = dim * len(ids)
	// block is data's memory when it is mapped outside the heap (from
	// hugepage.MinBlock bytes, on Linux), nil when it is on the heap. It
	// keeps the mapping alive: data is only used through f.
	block *hugepage.Block
	ids   []string
	row   map[string]int
}

// NewFlat returns an empty index for vectors of dim dimensions.
func NewFlat(dim int) *Flat {
	return &Flat{dim: dim, row: make(map[string]int)}
}

// Grow makes room for n more vectors, so that loading a namespace whose
// size is known allocates its block once instead of growing it by
// doubling (which copies it and briefly holds two blocks).
func (f *Flat) Grow(n int) {
	if n <= 0 {
		return
	}
	f.reserve(n * f.dim)
	f.ids = slices.Grow(f.ids, n)
	if len(f.row) == 0 {
		f.row = make(map[string]int, n)
	}
}

// reserve makes room for n more floats in data: past hugepage.MinBlock
// bytes in a mapped block, which skips the runtime's zeroing of a fresh
// heap block a 4 KB page fault at a time (1.2 s for 100k x 512 on this
// project's VMs, 10 ms mapped), and leaves the vectors out of the heap
// the collector paces itself by; below it, or where there is no
// mapping, on the heap. A block replaced here is released once
// unreachable.
func (f *Flat) reserve(n int) {
	need := len(f.data) + n
	if need <= cap(f.data) {
		return
	}
	if b := hugepage.NewBlock(max(need, 2*cap(f.data))); b != nil {
		data := b.Floats()[:len(f.data)]
		copyFloats(data, f.data)
		f.data, f.block = data, b
		return
	}
	f.data = slices.Grow(f.data, n)
	f.block = nil
	hugepage.Advise(f.data)
}

// Dim returns the index's dimension.
func (f *Flat) Dim() int { return f.dim }

// Len returns the number of vectors.
func (f *Flat) Len() int { return len(f.ids) }

// Has reports whether id is indexed.
func (f *Flat) Has(id string) bool { _, ok := f.row[id]; return ok }

// Upsert adds or replaces the vector of id. The vector is copied and
// normalised; a zero vector is stored as zeros and never scores above 0.
func (f *Flat) Upsert(id string, vec []float32) error {
	if len(vec) != f.dim {
		return fmt.Errorf("index: vector has %d dimensions, index has %d", len(vec), f.dim)
	}
	r, ok := f.row[id]
	if !ok {
		r = len(f.ids)
		f.ids = append(f.ids, id)
		// Extend in place: appending a fresh zero slice would allocate
		// one per vector, which was most of a 100k-note load's garbage.
		// Every element of the new row is written below.
		f.reserve(f.dim)
		f.data = f.data[:len(f.data)+f.dim]
		f.row[id] = r
	}
	dst := f.data[r*f.dim : (r+1)*f.dim]
	var norm float64
	for _, v := range vec {
		norm += float64(v) * float64(v)
	}
	scale := float32(0)
	if norm > 0 {
		scale = float32(1 / math.Sqrt(norm))
	}
	for i, v := range vec {
		dst[i] = v * scale
	}
	runtime.KeepAlive(f) // dst may be f.block's memory
	return nil
}

// Remove deletes id; the last row moves into its place so the block stays
// contiguous.
func (f *Flat) Remove(id string) {
	r, ok := f.row[id]
	if !ok {
		return
	}
	last := len(f.ids) - 1
	if r != last {
		copy(f.data[r*f.dim:(r+1)*f.dim], f.data[last*f.dim:])
		f.ids[r] = f.ids[last]
		f.row[f.ids[r]] = r
	}
	f.ids = f.ids[:last]
	f.data = f.data[:last*f.dim]
	delete(f.row, id)
}

// Vector returns a copy of id's normalised vector.
func (f *Flat) Vector(id string) ([]float32, bool) {
	r, ok := f.row[id]
	if !ok {
		return nil, false
	}
	v := append([]float32(nil), f.data[r*f.dim:(r+1)*f.dim]...)
	runtime.KeepAlive(f)
	return v, true
}

// Similarities writes to out[i] the score Search gives ids[i] for query
// (its cosine), and reports in ok[i] whether ids[i] is indexed (out[i] is
// then 0 if not): the score of notes another ranking found, without a
// scan. out and ok must be as long as ids.
func (f *Flat) Similarities(query []float32, ids []string, out []float32, ok []bool) error {
	if len(query) != f.dim {
		return fmt.Errorf("index: query has %d dimensions, index has %d", len(query), f.dim)
	}
	q := Normalised(query)
	for i, id := range ids {
		r, found := f.row[id]
		out[i], ok[i] = 0, found
		if found {
			out[i] = Dot(q, f.data[r*f.dim:(r+1)*f.dim])
		}
	}
	runtime.KeepAlive(f)
	return nil
}

// parallelMin is the row count above which a scan is split across
// goroutines. Below it the goroutine start-up costs more than it saves
// (measured with BenchmarkSearch: at 10k x 512 one goroutine takes about
// 1 ms, so splitting pays off from a few thousand rows).
const parallelMin = 4096

// Search returns the k rows most similar to query, best first (ties by
// ID). If allow is non-nil only rows whose ID it accepts are considered.
// The query need not be normalised.
func (f *Flat) Search(query []float32, k int, allow func(id string) bool) ([]Hit, error) {
	if len(query) != f.dim {
		return nil, fmt.Errorf("index: query has %d dimensions, index has %d", len(query), f.dim)
	}
	n := len(f.ids)
	if k <= 0 || n == 0 {
		return nil, nil
	}
	q := Normalised(query)
	workers := 1
	if n >= parallelMin {
		workers = min(runtime.GOMAXPROCS(0), n/(parallelMin/2))
	}
	if workers <= 1 {
		h := f.scan(q, k, 0, n, allow)
		return h.sorted(), nil
	}
	heaps := make([]*topK, workers)
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			heaps[w] = f.scan(q, k, lo, hi, allow)
		}()
	}
	wg.Wait()
	merged := &topK{k: k}
	for _, h := range heaps {
		for _, hit := range h.hits {
			merged.offer(hit)
		}
	}
	return merged.sorted(), nil
}

func (f *Flat) scan(q []float32, k, lo, hi int, allow func(string) bool) *topK {
	h := &topK{k: k, hits: make([]Hit, 0, k)}
	dim := f.dim
	for r := lo; r < hi; r++ {
		if allow != nil && !allow(f.ids[r]) {
			continue
		}
		s := Dot(q, f.data[r*dim:(r+1)*dim])
		if len(h.hits) < k || s >= h.hits[0].Score {
			h.offer(Hit{ID: f.ids[r], Score: s})
		}
	}
	return h
}

// dotGeneric is the inner product of two equal-length vectors, unrolled
// by four so the compiler keeps four independent accumulators in
// registers: the portable fallback of Dot.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Normalised returns a copy of v scaled to unit length (zeros stay
// zeros), as the indexes keep vectors and queries.
func Normalised(v []float32) []float32 {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if norm == 0 {
		return out
	}
	s := float32(1 / math.Sqrt(norm))
	for i, x := range v {
		out[i] = x * s
	}
	return out
}

// topK is a min-heap of the best k hits seen so far.
type topK struct {
	k    int
	hits []Hit
}

func (h *topK) Len() int { return len(h.hits) }
func (h *topK) Less(i, j int) bool {
	return worse(h.hits[i], h.hits[j])
}
func (h *topK) Swap(i, j int) { h.hits[i], h.hits[j] = h.hits[j], h.hits[i] }
func (h *topK) Push(x any)    { h.hits = append(h.hits, x.(Hit)) }
func (h *topK) Pop() any {
	x := h.hits[len(h.hits)-1]
	h.hits = h.hits[:len(h.hits)-1]
	return x
}

// worse orders hits by score, then by ID descending, so that among equal
// scores the smaller (older) ID wins and results are deterministic.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.ID > b.ID
}

func (h *topK) offer(hit Hit) {
	if len(h.hits) < h.k {
		heap.Push(h, hit)
		return
	}
	if worse(h.hits[0], hit) {
		h.hits[0] = hit
		heap.Fix(h, 0)
	}
}

func (h *topK) sorted() []Hit {
	out := append([]Hit(nil), h.hits...)
	sort.Slice(out, func(i, j int) bool { return worse(out[j], out[i]) })
	return out
}

// Copy returns the ids and their normalised vectors, the vectors in one
// new block: what building another index from this one reads, under the
// caller's read lock, so that the build itself needs no lock.
func (f *Flat) Copy() (ids []string, vecs [][]float32) {
	ids = slices.Clone(f.ids)
	data := make([]float32, len(f.data))
	hugepage.Advise(data)
	copyFloats(data, f.data)
	vecs = make([][]float32, len(ids))
	for r := range vecs {
		vecs[r] = data[r*f.dim : (r+1)*f.dim : (r+1)*f.dim]
	}
	return ids, vecs
}

// copyFloats copies src into dst a megabyte at a time, yielding between
// megabytes. One memmove cannot be preempted, and a loop of them is
// preemptible only by luck, since the signal nearly always lands inside
// one; a garbage collection waits for every goroutine to stop for its
// stack to be scanned, and every goroutine that allocates meanwhile
// waits for the collection. A background build's copy of a 100k x 512
// Flat (about 0.4 s on fresh pages) held up a process's first search
// that long.
func copyFloats(dst, src []float32) {
	const chunk = 1 << 18 // floats
	for len(src) > chunk {
		copy(dst[:chunk], src[:chunk])
		dst, src = dst[chunk:], src[chunk:]
		runtime.Gosched()
	}
	copy(dst, src)
}
