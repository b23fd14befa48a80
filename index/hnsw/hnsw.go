package hnsw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"unsafe"

	"github.com/amem-dev/amem/internal/mmap"
)

// Options tune an Index. The zero value of each field means its default.
type Options struct {
	// M is the number of neighbours a node keeps on the upper layers;
	// layer 0 keeps up to 2*M. Higher M raises recall at a given
	// EfSearch and costs memory (4 bytes per link) and build time.
	// Default 16.
	M int
	// EfConstruction is the candidate pool searched when a vector is
	// linked in. Higher builds a better graph, more slowly. Default 100.
	EfConstruction int
	// EfSearch is the candidate pool of a search: the knob between recall
	// and speed (a search costs roughly in proportion to it). A search
	// uses at least k, and at least k*RerankFactor when re-ranking.
	// Default 128: the least that kept recall@10 at 0.95 (0.99 with
	// re-ranking) on the 1M-vector benchmark set; 64 sufficed at 100k.
	EfSearch int
	// UpperEf is the pool of a search on the layers above 0, whose best
	// become the entry points of layer 0. 1, the default, is the paper's
	// greedy walk to a single entry point. A graph of clusters of
	// near-duplicates (hundreds of copies of a note, each a little
	// different) links its clusters to each other on layer 0 only
	// thinly, so that a search entering the wrong cluster stays there;
	// a wider pool on the layers above, where clusters are linked, finds
	// the right one. On 150 clusters of 690 near-copies of 512-d corpus
	// vectors (cosine 0.95 within a cluster; 1% of layer-0 links cross
	// clusters, 30% of layer 1's), EfSearch 384 with re-ranking:
	// recall@10 0.62 at 1, 0.89 at 16, 0.98 at 64, at about twice the
	// search time of 1. TestNearDuplicateClusters checks a smaller set.
	UpperEf int
	// RerankFactor sets how many approximate candidates, per result
	// wanted, a re-ranking search asks the caller's vectors for.
	// Default 4.
	RerankFactor int
	// RerankMargin spares a re-ranking search the float vectors of
	// candidates that cannot reach the top k: only those whose
	// approximate score is within it of the k-th best approximate score
	// are re-ranked. A code's approximate cosine errs by at most
	// RerankMargin/2 in practice (on the benchmark set: rms 0.0005, the
	// largest of a million query-vector pairs 0.0026), so a candidate
	// further below scores below the k-th exactly too. On LoCoMo-like
	// notes at 100k it cut the vectors read from 40 to 18 per search.
	// Default 0.01; negative: re-rank every candidate.
	RerankMargin float32
	// CompactFraction is the share of dead slots (removed and not yet
	// reused by an insert) above which NeedsCompaction reports true.
	// Default 0.25.
	CompactFraction float64
	// Seed seeds the layer assignment, for reproducible graphs in tests.
	// Default 1.
	Seed uint64
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.M <= 0 {
		out.M = 16
	}
	out.M = min(out.M, maxM)
	if out.EfConstruction <= 0 {
		out.EfConstruction = 100
	}
	if out.EfSearch <= 0 {
		out.EfSearch = 128
	}
	if out.UpperEf <= 0 {
		out.UpperEf = 1
	}
	if out.RerankFactor <= 0 {
		out.RerankFactor = 4
	}
	if out.RerankMargin == 0 {
		out.RerankMargin = 0.01
	}
	if out.CompactFraction <= 0 {
		out.CompactFraction = 0.25
	}
	if out.Seed == 0 {
		out.Seed = 1
	}
	return out
}

// maxM bounds M so that a list's count fits in its first slot with room,
// and so that a decoded header cannot ask for absurd lists.
const maxM = 128

// maxLevels bounds a node's layer; with M >= 2 a level above 30 has
// probability below 2^-30 per node.
const maxLevels = 31

// ErrDimension is returned when a vector's length differs from the
// index's dimension.
var ErrDimension = errors.New("hnsw: wrong dimension")

// Index is an approximate cosine index: a hierarchical navigable small
// world graph (Malkov and Yashunin) over int8-quantised vectors.
//
// Nodes are numbered densely; a removed note's node stays in the graph,
// marked dead, still traversed but never returned, until an insert
// reuses its slot (re-linking it) or Compacted drops it.
//
// Index is not safe for concurrent use, with one exception: any number of
// Search, SearchAmong, WriteTo and Compacted calls may run at once when
// nothing mutates the index (callers hold a read-write lock, as with
// index.Flat).
type Index struct {
	dim  int
	opts Options
	m0   int     // layer-0 capacity, 2*M
	ml   float64 // level multiplier, 1/ln(M)

	ids   []string // by node; "" for dead nodes
	row   map[string]uint32
	dead  []bool
	free  []uint32 // dead nodes, reused by inserts
	ndead int

	// rows holds, per node, its dim int8 codes then its float32 scale
	// (unit vector ≈ code*scale). Keeping the scale beside the codes
	// saves a search one cache miss per node it visits: the scale
	// arrives with the codes' last line.
	rows   []byte
	stride int // dim+4
	level  []uint8
	links0 []uint32 // m0+1 per node: count, then neighbours
	// upper holds the lists of layers 1..level of every node above layer
	// 0, M+1 words each, in node order (as the file has them); upperAt[u]
	// is where node u's begin. One slab and an offset cost 4 bytes a
	// node where a slice per node cost 24 and an allocation.
	upper   []uint32
	upperAt []uint32

	entry    uint32
	maxLevel int // -1 while empty

	rng *rand.Rand

	// locks guard neighbour lists during parallel building only (a node's
	// list under locks[node%len]); a search under the caller's read lock
	// needs none. One lock is held at a time, so stripes cannot deadlock.
	locks []sync.Mutex
	epMu  sync.Mutex // guards entry and maxLevel during parallel building

	pool sync.Pool // *scratch

	// Float vectors, for re-ranking (floats.go): base holds nodes
	// [0, baseN), from a mapped file (baseMap keeps the mapping alive);
	// side holds those set since, and wins.
	keep    bool
	base    []float32
	baseN   int
	baseMap *mmap.Map
	side    map[uint32][]float32
	pinned  []*mmap.Map // older mappings side entries may point into
}

// New returns an empty index for vectors of dim dimensions; opts may be nil.
func New(dim int, opts *Options) (*Index, error) {
	if dim <= 0 || dim > maxDim {
		return nil, fmt.Errorf("hnsw: dimension %d out of range 1..%d", dim, maxDim)
	}
	o := opts.withDefaults()
	x := &Index{
		dim:      dim,
		opts:     o,
		stride:   dim + 4,
		m0:       2 * o.M,
		ml:       1 / math.Log(float64(max(o.M, 2))),
		row:      make(map[string]uint32),
		maxLevel: -1,
		rng:      rand.New(rand.NewPCG(o.Seed, 0x686e7377)),
	}
	return x, nil
}

// maxDim keeps dot8's int32 sums from overflowing (127*127*maxDim < 2^31)
// and a decoded header honest.
const maxDim = 1 << 16

// Dim returns the index's dimension.
func (x *Index) Dim() int { return x.dim }

// Len returns the number of live vectors.
func (x *Index) Len() int { return len(x.row) }

// Bytes is about the heap the index holds: codes and scales, links, ids
// and the id map (its entries estimated at 48 bytes beside the ids).
func (x *Index) Bytes() int64 {
	b := int64(len(x.rows)) + 4*int64(len(x.links0)) + int64(len(x.level)) + int64(len(x.dead)) + 4*int64(len(x.free))
	for _, id := range x.ids {
		b += 16 + int64(len(id)) + 4
	}
	b += 4 * int64(len(x.upper))
	b += int64(len(x.side)) * int64(4*x.dim+48)
	return b + 48*int64(len(x.row))
}

// Dead returns the number of dead nodes: removed vectors whose slots no
// insert has reused yet.
func (x *Index) Dead() int { return x.ndead }

// NeedsCompaction reports whether dead nodes have passed
// Options.CompactFraction of all nodes. Dead nodes cost search time (they
// are traversed but never returned) and memory; inserts reuse them, so
// only a namespace that shrinks accumulates them. See Compacted.
func (x *Index) NeedsCompaction() bool {
	return x.ndead > 0 && float64(x.ndead) > x.opts.CompactFraction*float64(len(x.ids))
}

// Has reports whether id is indexed.
func (x *Index) Has(id string) bool { _, ok := x.row[id]; return ok }

// SetEfSearch changes Options.EfSearch (under the caller's write lock).
func (x *Index) SetEfSearch(ef int) {
	if ef > 0 {
		x.opts.EfSearch = ef
	}
}

// SetUpperEf changes Options.UpperEf (under the caller's write lock).
func (x *Index) SetUpperEf(ef int) {
	if ef > 0 {
		x.opts.UpperEf = ef
	}
}

// Grow makes room for n more vectors, so that loading a namespace of
// known size allocates each array once.
func (x *Index) Grow(n int) {
	if n <= 0 {
		return
	}
	x.ids = growTo(x.ids, n)
	x.dead = growTo(x.dead, n)
	x.rows = growTo(x.rows, n*x.stride)
	x.level = growTo(x.level, n)
	x.links0 = growTo(x.links0, n*(x.m0+1))
	x.upperAt = growTo(x.upperAt, n)
	if len(x.row) == 0 {
		x.row = make(map[string]uint32, n)
	}
}

func growTo[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	out := make([]T, len(s), len(s)+n)
	copy(out, s)
	return out
}

// Upsert adds or replaces the vector of id. The vector is normalised and
// quantised; the float values are kept (a copy) only if KeepFloats was
// called. A replaced vector is re-linked where it now belongs. A new id
// reuses a dead node when there is one.
func (x *Index) Upsert(id string, vec []float32) error {
	if len(vec) != x.dim {
		return fmt.Errorf("%w: vector has %d dimensions, index has %d", ErrDimension, len(vec), x.dim)
	}
	if x.keep {
		vec = append([]float32(nil), vec...)
	}
	return x.upsertOwned(id, vec)
}

// upsertOwned is Upsert keeping vec itself as the floats.
func (x *Index) upsertOwned(id string, vec []float32) error {
	if u, ok := x.row[id]; ok {
		x.setScale(u, quantise(x.code(u), vec))
		x.keepFloats(u, vec)
		x.relink(u)
		return nil
	}
	if n := len(x.free); n > 0 {
		u := x.free[n-1]
		x.free = x.free[:n-1]
		x.dead[u] = false
		x.ndead--
		x.ids[u] = id
		x.row[id] = u
		x.setScale(u, quantise(x.code(u), vec))
		x.keepFloats(u, vec)
		x.relink(u)
		return nil
	}
	u := x.appendNode(id, vec)
	x.insert(u, nil, false)
	return nil
}

// appendNode adds a node, unlinked, with a fresh random level and vec's
// code (vec nil: the caller writes the row).
func (x *Index) appendNode(id string, vec []float32) uint32 {
	u := uint32(len(x.ids))
	x.ids = append(x.ids, id)
	x.row[id] = u
	x.dead = append(x.dead, false)
	x.rows = append(x.rows, make([]byte, x.stride)...)
	if vec != nil {
		x.setScale(u, quantise(x.code(u), vec))
		x.keepFloats(u, vec)
	}
	lv := min(int(-math.Log(1-x.rng.Float64())*x.ml), maxLevels)
	x.level = append(x.level, uint8(lv))
	x.links0 = append(x.links0, make([]uint32, x.m0+1)...)
	x.upperAt = append(x.upperAt, uint32(len(x.upper)))
	x.upper = append(x.upper, make([]uint32, lv*(x.opts.M+1))...)
	return u
}

// Remove deletes id. Its node stays in the graph, dead: searches still
// pass through it (so nothing it connected is cut off) but never return
// it, and the next insert of a new id takes its slot.
func (x *Index) Remove(id string) {
	u, ok := x.row[id]
	if !ok {
		return
	}
	delete(x.row, id)
	delete(x.side, u)
	x.ids[u] = ""
	x.dead[u] = true
	x.ndead++
	x.free = append(x.free, u)
}

func (x *Index) code(u uint32) []int8 {
	r := x.rows[int(u)*x.stride:]
	return unsafe.Slice((*int8)(unsafe.Pointer(&r[0])), x.dim)
}

func (x *Index) scaleOf(u uint32) float32 {
	o := int(u)*x.stride + x.dim
	return math.Float32frombits(binary.LittleEndian.Uint32(x.rows[o : o+4]))
}

func (x *Index) setScale(u uint32, s float32) {
	o := int(u)*x.stride + x.dim
	binary.LittleEndian.PutUint32(x.rows[o:o+4], math.Float32bits(s))
}

// simTo is the approximate cosine of node v to a query quantised as q
// with scale qs.
func (x *Index) simTo(q []int8, qs float32, v uint32) float32 {
	r := x.rows[int(v)*x.stride : (int(v)+1)*x.stride]
	d := dot8(q, unsafe.Slice((*int8)(unsafe.Pointer(&r[0])), len(q)))
	return float32(d) * qs * math.Float32frombits(binary.LittleEndian.Uint32(r[len(q):]))
}

// list returns node u's neighbour list on layer lc: count then slots.
func (x *Index) list(u uint32, lc int) []uint32 {
	if lc == 0 {
		return x.links0[int(u)*(x.m0+1) : (int(u)+1)*(x.m0+1)]
	}
	w := x.opts.M + 1
	at := int(x.upperAt[u]) + (lc-1)*w
	return x.upper[at : at+w : at+w]
}

// sim is the approximate cosine of nodes a and b.
func (x *Index) sim(a, b uint32) float32 {
	return x.simTo(x.code(a), x.scaleOf(a), b)
}
