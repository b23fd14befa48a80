package hnsw

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/amem-dev/amem/internal/mmap"
)

// An index that keeps floats (KeepFloats) re-ranks its candidates by
// their float vectors without asking the caller. The floats of a node
// are in one of two places: a base block covering nodes [0, n) (a float
// file written by WriteFloatsTo and mapped back by AttachFloats, so that
// they cost no heap, or during a build the block the caller handed over),
// or a small heap side table holding the vectors set since. A node's
// side entry, when it has one, is the newer.
//
// The float file, little-endian:
//
//	magic      "AMEMVEC1"
//	header     u32 dim, u32 nodes, u64 pair number, u32 CRC-32C of magic
//	           and header; zeros to byte 64
//	rows       per node: dim f32 (a dead node's all zero)
//
// The pair number is the caller's (amem: the feed number the graph file
// written with it reflects), so that a float file is only used with the
// graph it was written beside. The rows have no checksum: AttachFloats
// checks each live row against the graph instead, by quantising it and
// comparing with the node's code, which also catches a row that is well
// formed but stale.

const (
	floatMagic  = "AMEMVEC1"
	floatHeader = 64 // keeps the rows 4-byte (and cache-line) aligned in a mapping
)

// ErrStaleFloats is returned by AttachFloats when the float file does not
// belong to the index: another pair number, dimension or node count, a
// truncated or damaged file, or a row whose quantisation is not its
// node's code.
var ErrStaleFloats = errors.New("hnsw: float vectors do not match the index")

var floatCRC = crc32.MakeTable(crc32.Castagnoli)

// KeepFloats makes the index keep the float vector of every vector
// upserted from now on, for re-ranking and WriteFloatsTo. Vectors already
// in the index have none until a float file is attached.
func (x *Index) KeepFloats() {
	x.keep = true
	if x.side == nil {
		x.side = make(map[uint32][]float32)
	}
}

// KeepsFloats reports whether KeepFloats was called.
func (x *Index) KeepsFloats() bool { return x.keep }

// HeapFloats is the number of float vectors held on the heap, set since
// the float file was attached: the caller writes a new file when they
// grow (amem: past a sixteenth of the namespace).
func (x *Index) HeapFloats() int { return len(x.side) }

// DropFloats forgets every float vector and stops keeping them: re-ranking
// then asks the caller again.
func (x *Index) DropFloats() {
	x.keep, x.base, x.baseN, x.baseMap, x.side, x.pinned = false, nil, 0, nil, nil, nil
}

// keepFloats records vec as u's floats, owning it.
func (x *Index) keepFloats(u uint32, vec []float32) {
	if x.keep {
		x.side[u] = vec
	}
}

// floatsOf returns node u's float vector, nil if the index has none.
func (x *Index) floatsOf(u uint32) []float32 {
	if v, ok := x.side[u]; ok {
		return v
	}
	if int(u) < x.baseN {
		o := int(u) * x.dim
		return x.base[o : o+x.dim : o+x.dim]
	}
	return nil
}

// WriteFloatsTo writes the float file of the index's nodes, tagged with
// pair. Every live node must have its floats. It only reads the index,
// so it may run under the caller's read lock.
func (x *Index) WriteFloatsTo(w io.Writer, pair int64) (int64, error) {
	if !x.keep {
		return 0, errors.New("hnsw: the index keeps no float vectors")
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	head := floatHead(x.dim, len(x.ids), pair)
	n, err := bw.Write(head)
	total := int64(n)
	zero := make([]float32, x.dim)
	buf := make([]byte, 4*x.dim)
	for u := range x.ids {
		if err != nil {
			break
		}
		v := zero
		if !x.dead[u] {
			if v = x.floatsOf(uint32(u)); v == nil {
				return total, fmt.Errorf("hnsw: node %d (%s) has no float vector", u, x.ids[u])
			}
		}
		for i, f := range v {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(f))
		}
		n, err = bw.Write(buf)
		total += int64(n)
	}
	if err == nil {
		err = bw.Flush()
	}
	return total, err
}

func floatHead(dim, nodes int, pair int64) []byte {
	b := make([]byte, 0, floatHeader)
	b = append(b, floatMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(nodes))
	b = binary.LittleEndian.AppendUint64(b, uint64(pair))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, floatCRC))
	return b[:floatHeader]
}

// FloatFile is a float file checked against an index, ready for
// UseFloats.
type FloatFile struct {
	m     *mmap.Map
	rows  []float32
	nodes int
}

// CheckFloats checks a mapped float file against the index: its header
// (pair number, dimension, a node count the index has at least) and
// every live node's row, unless the node has newer floats on the heap.
// It only reads the index, so it may run under the caller's read lock;
// the index may change between it and UseFloats. The mismatches are
// ErrStaleFloats.
func (x *Index) CheckFloats(m *mmap.Map, pair int64) (*FloatFile, error) {
	data := m.Bytes()
	if len(data) < floatHeader {
		return nil, fmt.Errorf("%w: truncated header", ErrStaleFloats)
	}
	dim := int(binary.LittleEndian.Uint32(data[8:]))
	nodes := int(binary.LittleEndian.Uint32(data[12:]))
	filePair := int64(binary.LittleEndian.Uint64(data[16:]))
	if string(data[:8]) != floatMagic || string(floatHead(dim, nodes, filePair)) != string(data[:floatHeader]) {
		return nil, fmt.Errorf("%w: not a float file", ErrStaleFloats)
	}
	switch {
	case filePair != pair:
		return nil, fmt.Errorf("%w: written with pair number %d, the graph's is %d", ErrStaleFloats, filePair, pair)
	case dim != x.dim:
		return nil, fmt.Errorf("%w: %d dimensions, the index has %d", ErrStaleFloats, dim, x.dim)
	case nodes > len(x.ids):
		return nil, fmt.Errorf("%w: %d rows, the index has %d nodes", ErrStaleFloats, nodes, len(x.ids))
	case int64(len(data)) != floatHeader+int64(nodes)*int64(dim)*4:
		return nil, fmt.Errorf("%w: %d bytes, want %d", ErrStaleFloats, len(data), floatHeader+int64(nodes)*int64(dim)*4)
	}
	rows := floatRows(data[floatHeader:])
	// Checking is a quantisation per row (1.7 µs at 512-d, plus reading
	// the row in): split over the cores, it keeps a 1M open near a second.
	workers := min(runtime.GOMAXPROCS(0), max(nodes/4096, 1))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code := make([]int8, x.dim)
			for u := w * nodes / workers; u < (w+1)*nodes/workers; u++ {
				if x.dead[u] {
					continue
				}
				if _, newer := x.side[uint32(u)]; newer {
					continue
				}
				row := rows[u*dim : (u+1)*dim]
				if s := quantise(code, row); s != x.scaleOf(uint32(u)) || !codesEqual(code, x.code(uint32(u))) {
					errs[w] = fmt.Errorf("%w: the row of node %d (%s) is not its code", ErrStaleFloats, u, x.ids[u])
					return
				}
			}
		}()
	}
	wg.Wait()
	// The check read every row; searches read a few. Leaving the rest
	// resident would count the whole file in the process's memory.
	m.Release()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &FloatFile{m: m, rows: rows, nodes: nodes}, nil
}

// UseFloats takes a checked float file as the index's base block and
// drops the heap vectors it holds the same of. The caller holds its write
// lock, or owns the index.
func (x *Index) UseFloats(f *FloatFile) {
	x.keep = true
	x.base, x.baseN, x.baseMap = f.rows, f.nodes, f.m
	kept := make(map[uint32][]float32)
	for u, v := range x.side {
		if int(u) < f.nodes && !x.dead[u] && floatsEqual(v, f.rows[int(u)*x.dim:(int(u)+1)*x.dim]) {
			continue
		}
		kept[u] = v
	}
	x.side = kept // a fresh map: a drained map keeps its size
	// Heap entries that point into an older mapping (a compaction's) were
	// in the file, so equal and dropped; changed since, they are copies.
	x.pinned = nil
}

// AttachFloats is CheckFloats then UseFloats.
func (x *Index) AttachFloats(m *mmap.Map, pair int64) error {
	f, err := x.CheckFloats(m, pair)
	if err != nil {
		return err
	}
	x.UseFloats(f)
	return nil
}

// floatRows views little-endian f32 rows as floats: in place where the
// machine is little-endian (a mapping is page-aligned and the rows start
// at byte 64), decoded into the heap elsewhere.
func floatRows(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func codesEqual(a, b []int8) bool {
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), len(a))) ==
		string(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)))
}

func floatsEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
