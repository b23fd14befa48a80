package hnsw

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"slices"
)

// The file format, version 1, little-endian throughout:
//
//	magic     "AMEMHNSW"
//	header    u32 version, dim, M, EfConstruction, nodes; i32 maxLevel; u32 entry
//	ids       per node: u32 length, bytes (dead nodes: length 0)
//	dead      per node: one byte, 0 or 1
//	levels    per node: one byte
//	rows      per node: dim int8 codes, f32 scale
//	layer 0   per node: u32 count, 2*M u32 neighbours
//	upper     per node with level L > 0: L lists of u32 count, M u32 neighbours
//	checksum  u32 CRC-32C of everything before it
//
// The arrays are the index's own, so writing is a copy and reading
// allocates each once; nothing is rebuilt but the id map.

const (
	magic   = "AMEMHNSW"
	version = 1
)

// ErrCorrupt is returned by Read when its input is not a valid index: a
// bad magic, version, checksum or structure, or a truncated stream.
var ErrCorrupt = errors.New("hnsw: corrupt index")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes the index to w in the format Read reads. It only reads
// the index, so it may run under the caller's read lock, alongside
// searches.
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	cw := &crcWriter{w: bufio.NewWriterSize(w, 1<<20), h: crc32.New(castagnoli)}
	n := len(x.ids)
	cw.bytes([]byte(magic))
	for _, v := range []uint32{version, uint32(x.dim), uint32(x.opts.M), uint32(x.opts.EfConstruction), uint32(n), uint32(int32(x.maxLevel)), x.entry} {
		cw.u32(v)
	}
	for _, id := range x.ids {
		cw.u32(uint32(len(id)))
		cw.bytes([]byte(id))
	}
	dead := make([]byte, n)
	for i, d := range x.dead {
		if d {
			dead[i] = 1
		}
	}
	cw.bytes(dead)
	cw.bytes(x.level)
	cw.bytes(x.rows)
	cw.u32s(x.links0)
	for _, up := range x.upper {
		cw.u32s(up)
	}
	sum := cw.h.Sum32()
	cw.hashOff = true
	cw.u32(sum)
	if cw.err == nil {
		cw.err = cw.w.Flush()
	}
	return cw.n, cw.err
}

type crcWriter struct {
	w       *bufio.Writer
	h       hash.Hash32
	hashOff bool
	n       int64
	err     error
	buf     []byte
}

func (c *crcWriter) bytes(b []byte) {
	if c.err != nil {
		return
	}
	if !c.hashOff {
		c.h.Write(b)
	}
	var m int
	m, c.err = c.w.Write(b)
	c.n += int64(m)
}

func (c *crcWriter) u32(v uint32) {
	c.bytes(binary.LittleEndian.AppendUint32(c.buf[:0], v))
}

func (c *crcWriter) u32s(vs []uint32) {
	for len(vs) > 0 && c.err == nil {
		chunk := vs[:min(len(vs), 1<<14)]
		vs = vs[len(chunk):]
		c.buf = c.buf[:0]
		for _, v := range chunk {
			c.buf = binary.LittleEndian.AppendUint32(c.buf, v)
		}
		c.bytes(c.buf)
	}
}

// Read reads an index written by WriteTo. M and EfConstruction come from
// the input; the other fields of opts (nil: defaults) apply as in New.
// Input that is not a valid index, truncated or damaged, is an error
// wrapping ErrCorrupt, never a panic; memory is allocated as the input
// delivers data, not as its header claims.
func Read(r io.Reader, opts *Options) (*Index, error) {
	cr := &crcReader{r: bufio.NewReaderSize(r, 1<<20), h: crc32.New(castagnoli)}
	if string(cr.bytes(len(magic))) != magic {
		return nil, corrupt(cr.err, "not an index file")
	}
	var hdr [7]uint32
	for i := range hdr {
		hdr[i] = cr.u32()
	}
	if cr.err != nil {
		return nil, corrupt(cr.err, "short header")
	}
	ver, dim, m, efc, n, maxLevel, entry := hdr[0], int(hdr[1]), int(hdr[2]), int(hdr[3]), int(hdr[4]), int(int32(hdr[5])), hdr[6]
	if ver != version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, ver, version)
	}
	if m < 2 || m > maxM || efc <= 0 || efc > 1<<20 || n > math.MaxInt32 {
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

	x.ids = make([]string, 0, min(n, 1<<16))
	for i := 0; i < n && cr.err == nil; i++ {
		x.ids = append(x.ids, cr.id())
	}
	dead := cr.bytes(n)
	x.level = cr.bytes(n)
	x.rows = cr.bytes(n * x.stride)
	x.links0 = cr.u32s(n * (x.m0 + 1))
	if cr.err != nil {
		return nil, corrupt(cr.err, "truncated")
	}
	x.dead = make([]bool, n)
	x.upper = make([][]uint32, n)
	x.row = make(map[string]uint32, n)
	for u := range n {
		if x.level[u] > uint8(max(maxLevel, 0)) {
			return nil, fmt.Errorf("%w: node %d above the top layer", ErrCorrupt, u)
		}
		if lv := int(x.level[u]); lv > 0 {
			x.upper[u] = cr.u32s(lv * (m + 1))
		}
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
	if cr.err != nil {
		return nil, corrupt(cr.err, "truncated")
	}
	sum := cr.h.Sum32()
	if got := cr.u32(); cr.err != nil || got != sum {
		return nil, corrupt(cr.err, "checksum mismatch")
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

func corrupt(err error, what string) error {
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, what, err)
	}
	return fmt.Errorf("%w: %s", ErrCorrupt, what)
}

type crcReader struct {
	r     *bufio.Reader
	h     hash.Hash32
	err   error
	small [64]byte
}

// short reads n <= len(c.small) bytes into c.small, saving the
// allocation per id and per count that bytes would make.
func (c *crcReader) short(n int) []byte {
	if c.err != nil {
		return nil
	}
	b := c.small[:n]
	if _, err := io.ReadFull(c.r, b); err != nil {
		c.err = err
		return nil
	}
	c.h.Write(b)
	return b
}

func (c *crcReader) id() string {
	n := int(c.u32())
	if n <= len(c.small) {
		return string(c.short(n))
	}
	return string(c.bytes(n))
}

// bytes reads n bytes, growing its buffer only as data arrives so that a
// damaged length cannot allocate more than twice what the input holds.
func (c *crcReader) bytes(n int) []byte {
	if c.err != nil || n < 0 {
		if c.err == nil {
			c.err = io.ErrUnexpectedEOF
		}
		return nil
	}
	buf := make([]byte, 0, min(n, 1<<20))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(n-len(buf), len(buf)))
		}
		m, err := io.ReadFull(c.r, buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err != nil {
			c.err = err
			return nil
		}
	}
	c.h.Write(buf)
	return buf
}

func (c *crcReader) u32() uint32 {
	b := c.short(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (c *crcReader) u32s(n int) []uint32 {
	b := c.bytes(4 * n)
	if b == nil {
		return nil
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}
