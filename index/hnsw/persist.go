package hnsw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/amem-dev/amem/internal/crcio"
)

// The file format, version 1, little-endian throughout:
//
//	magic       "AMEMHNSW"
//	header      u32 version, dim, M, EfConstruction, nodes; i32 maxLevel;
//	            u32 entry; u64 id bytes; u64 upper-layer words
//	header sum  u32 CRC-32C of magic and header
//	id lengths  per node: u32 (dead nodes: 0)
//	ids         the ids' bytes, concatenated
//	dead        per node: one byte, 0 or 1
//	levels      per node: one byte
//	rows        per node: dim int8 codes, f32 scale
//	layer 0     per node: u32 count, 2*M u32 neighbours
//	upper       per node with level L > 0: L lists of u32 count, M u32
//	            neighbours
//	checksum    u32 CRC-32C of everything before it
//
// The header has its own checksum so that Read can trust the sizes it
// gives and allocate each array once, at its final size, instead of
// growing buffers as data arrives; the arrays are the index's own, so
// writing is a copy and reading rebuilds nothing but the id map.

const (
	magic   = "AMEMHNSW"
	version = 1
)

// ErrCorrupt is returned by Read when its input is not a valid index: a
// bad magic, version, checksum or structure, or a truncated stream.
var ErrCorrupt = errors.New("hnsw: corrupt index")

// WriteTo writes the index to w in the format Read reads. It only reads
// the index, so it may run under the caller's read lock, alongside
// searches.
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	cw := crcio.NewWriter(w)
	n := len(x.ids)
	var idBytes, upperWords uint64
	for _, id := range x.ids {
		idBytes += uint64(len(id))
	}
	upperWords = uint64(len(x.upper))
	cw.Bytes([]byte(magic))
	for _, v := range []uint32{version, uint32(x.dim), uint32(x.opts.M), uint32(x.opts.EfConstruction), uint32(n), uint32(int32(x.maxLevel)), x.entry} {
		cw.U32(v)
	}
	cw.U64(idBytes)
	cw.U64(upperWords)
	cw.U32(cw.Sum())
	for _, id := range x.ids {
		cw.U32(uint32(len(id)))
	}
	for _, id := range x.ids {
		cw.Bytes([]byte(id))
	}
	dead := make([]byte, n)
	for i, d := range x.dead {
		if d {
			dead[i] = 1
		}
	}
	cw.Bytes(dead)
	cw.Bytes(x.level)
	cw.Bytes(x.rows)
	cw.U32s(x.links0)
	cw.U32s(x.upper)
	cw.U32(cw.Sum())
	return cw.Flush()
}

// Read reads an index written by WriteTo. M and EfConstruction come from
// the input; the other fields of opts (nil: defaults) apply as in New.
// Input that is not a valid index, truncated or damaged, is an error
// wrapping ErrCorrupt, never a panic.
func Read(r io.Reader, opts *Options) (*Index, error) {
	cr := crcio.NewReader(r)
	var head [len(magic) + 7*4 + 2*8]byte
	cr.Full(head[:])
	sum := cr.Sum()
	if cr.Err() != nil || string(head[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: not an index file", ErrCorrupt)
	}
	if cr.U32() != sum {
		return nil, fmt.Errorf("%w: header checksum mismatch", ErrCorrupt)
	}
	h := head[len(magic):]
	var f [7]uint32
	for i := range f {
		f[i] = binary.LittleEndian.Uint32(h[4*i:])
	}
	ver, dim, m, efc, n, maxLevel, entry := f[0], int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(int32(f[5])), f[6]
	idBytes, upperWords := binary.LittleEndian.Uint64(h[28:]), binary.LittleEndian.Uint64(h[36:])
	if ver != version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, ver, version)
	}
	if m < 2 || m > maxM || efc <= 0 || efc > 1<<20 || n > math.MaxInt32 ||
		idBytes > 1<<40 || upperWords > uint64(n)*maxLevels*(maxM+1) || upperWords > math.MaxUint32 {
		return nil, fmt.Errorf("%w: header out of range", ErrCorrupt)
	}
	o := opts.withDefaults()
	o.M, o.EfConstruction = m, efc
	x, err := New(dim, &o)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if (n == 0) != (maxLevel == -1) || maxLevel < -1 || maxLevel > maxLevels || n > 0 && int(entry) >= n {
		return nil, fmt.Errorf("%w: entry point out of range", ErrCorrupt)
	}
	x.maxLevel, x.entry = maxLevel, entry

	lens := make([]uint32, n)
	cr.U32s(lens)
	blob := make([]byte, idBytes)
	cr.Full(blob)
	dead := make([]byte, n)
	cr.Full(dead)
	x.level = make([]byte, n)
	cr.Full(x.level)
	x.rows = make([]byte, n*x.stride)
	cr.Full(x.rows)
	x.links0 = make([]uint32, n*(x.m0+1))
	cr.U32s(x.links0)
	upper := make([]uint32, upperWords)
	cr.U32s(upper)
	sum = cr.Sum()
	if got := cr.U32(); cr.Err() != nil || got != sum {
		if cr.Err() != nil {
			return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}

	// One string holds every id; each id is a substring of it, which
	// saves an allocation per id.
	ids := string(blob)
	x.ids = make([]string, n)
	x.dead = make([]bool, n)
	x.upper = upper
	x.upperAt = make([]uint32, n)
	x.row = make(map[string]uint32, n)
	var off uint64
	var at uint32 // the next node's lists in upper
	for u := range n {
		if lv := int(x.level[u]); lv > max(maxLevel, 0) {
			return nil, fmt.Errorf("%w: node %d above the top layer", ErrCorrupt, u)
		} else if lv > 0 {
			w := lv * (m + 1)
			if uint64(len(upper)) < uint64(at)+uint64(w) {
				return nil, fmt.Errorf("%w: upper layers short", ErrCorrupt)
			}
			x.upperAt[u] = at
			at += uint32(w)
		}
		if uint64(lens[u]) > idBytes-off {
			return nil, fmt.Errorf("%w: ids short", ErrCorrupt)
		}
		x.ids[u] = ids[off : off+uint64(lens[u])]
		off += uint64(lens[u])
		switch dead[u] {
		case 0:
			if _, dup := x.row[x.ids[u]]; dup {
				return nil, fmt.Errorf("%w: id %q twice", ErrCorrupt, x.ids[u])
			}
			x.row[x.ids[u]] = uint32(u)
		case 1:
			if x.ids[u] != "" {
				return nil, fmt.Errorf("%w: dead node %d has an id", ErrCorrupt, u)
			}
			x.dead[u] = true
			x.ndead++
			x.free = append(x.free, uint32(u))
		default:
			return nil, fmt.Errorf("%w: node %d dead flag %d", ErrCorrupt, u, dead[u])
		}
	}
	if off != idBytes || int(at) != len(upper) {
		return nil, fmt.Errorf("%w: sections do not add up", ErrCorrupt)
	}
	if err := x.check(); err != nil {
		return nil, err
	}
	return x, nil
}

// check validates what searches index by: every neighbour a node on its
// layer, every count within its list, every code and scale in range.
func (x *Index) check() error {
	n := len(x.ids)
	if n > 0 && int(x.level[x.entry]) != x.maxLevel {
		return fmt.Errorf("%w: entry point not on the top layer", ErrCorrupt)
	}
	for u := range n {
		for lc := 0; lc <= int(x.level[u]); lc++ {
			l := x.list(uint32(u), lc)
			if int(l[0]) > len(l)-1 {
				return fmt.Errorf("%w: node %d layer %d has %d neighbours", ErrCorrupt, u, lc, l[0])
			}
			for _, v := range l[1 : 1+l[0]] {
				if int(v) >= n || int(x.level[v]) < lc {
					return fmt.Errorf("%w: node %d layer %d links to %d", ErrCorrupt, u, lc, v)
				}
			}
		}
		for _, c := range x.code(uint32(u)) {
			if c == -128 {
				return fmt.Errorf("%w: node %d code out of range", ErrCorrupt, u)
			}
		}
		if s := x.scaleOf(uint32(u)); s < 0 || math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			return fmt.Errorf("%w: node %d scale %v", ErrCorrupt, u, s)
		}
	}
	return nil
}
