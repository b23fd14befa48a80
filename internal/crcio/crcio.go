// Package crcio writes and reads the little-endian, CRC-32C checksummed
// streams of amem's saved indexes (index/hnsw and lexindex): every byte
// passes through one running checksum, which a format writes where it
// wants it checked (after a header whose sizes the reader will trust,
// and at the end).
package crcio

import (
	"bufio"
	"encoding/binary"
	"hash"
	"hash/crc32"
	"io"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Writer buffers and checksums what it writes. After the first error it
// writes nothing more; Flush reports it. Not safe for concurrent use.
type Writer struct {
	w   *bufio.Writer
	h   hash.Hash32
	n   int64
	err error
	buf []byte
}

// NewWriter writes to w through a 1 MiB buffer.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 1<<20), h: crc32.New(castagnoli)}
}

// Sum is the checksum of everything written so far.
func (c *Writer) Sum() uint32 { return c.h.Sum32() }

// Bytes writes b.
func (c *Writer) Bytes(b []byte) {
	if c.err != nil {
		return
	}
	c.h.Write(b)
	var m int
	m, c.err = c.w.Write(b)
	c.n += int64(m)
}

// String writes s's bytes (no length).
func (c *Writer) String(s string) { c.Bytes([]byte(s)) }

func (c *Writer) U32(v uint32) { c.Bytes(binary.LittleEndian.AppendUint32(c.buf[:0], v)) }
func (c *Writer) U64(v uint64) { c.Bytes(binary.LittleEndian.AppendUint64(c.buf[:0], v)) }

// U32s writes vs, encoding through a bounded buffer.
func (c *Writer) U32s(vs []uint32) { put(c, vs, binary.LittleEndian.AppendUint32) }

// U16s writes vs as U32s does.
func (c *Writer) U16s(vs []uint16) { put(c, vs, binary.LittleEndian.AppendUint16) }

// U64s writes vs as U32s does.
func (c *Writer) U64s(vs []uint64) { put(c, vs, binary.LittleEndian.AppendUint64) }

// put encodes little-endian integers from vs, at most 16k at a time
// through c's buffer.
func put[T uint16 | uint32 | uint64](c *Writer, vs []T, encode func([]byte, T) []byte) {
	for len(vs) > 0 && c.err == nil {
		chunk := vs[:min(len(vs), 1<<14)]
		vs = vs[len(chunk):]
		c.buf = c.buf[:0]
		for _, v := range chunk {
			c.buf = encode(c.buf, v)
		}
		c.Bytes(c.buf)
	}
}

// Flush writes out the buffer and returns the bytes written and the
// first error.
func (c *Writer) Flush() (int64, error) {
	if c.err == nil {
		c.err = c.w.Flush()
	}
	return c.n, c.err
}

// Reader checksums what it reads. After the first error it reads nothing
// more (values read are zero): the caller checks Err once at the end of
// a section. Not safe for concurrent use.
type Reader struct {
	r   *bufio.Reader
	h   hash.Hash32
	err error
	buf []byte
}

// NewReader reads from r through a 64 KiB buffer.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 1<<16), h: crc32.New(castagnoli)}
}

// Err is the first error met, io.ErrUnexpectedEOF or io.EOF for a short
// input.
func (c *Reader) Err() error { return c.err }

// Sum is the checksum of everything read so far.
func (c *Reader) Sum() uint32 { return c.h.Sum32() }

// Full fills b.
func (c *Reader) Full(b []byte) {
	if c.err != nil {
		return
	}
	if _, err := io.ReadFull(c.r, b); err != nil {
		c.err = err
		return
	}
	c.h.Write(b)
}

func (c *Reader) U32() uint32 {
	var b [4]byte
	c.Full(b[:])
	return binary.LittleEndian.Uint32(b[:])
}

func (c *Reader) U64() uint64 {
	var b [8]byte
	c.Full(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// U32s fills dst, decoding through a bounded buffer rather than one the
// size of dst.
func (c *Reader) U32s(dst []uint32) { fill(c, dst, 4, binary.LittleEndian.Uint32) }

// U16s fills dst as U32s does.
func (c *Reader) U16s(dst []uint16) { fill(c, dst, 2, binary.LittleEndian.Uint16) }

// U64s fills dst as U32s does.
func (c *Reader) U64s(dst []uint64) { fill(c, dst, 8, binary.LittleEndian.Uint64) }

// fill decodes little-endian integers of width bytes into dst, at most
// 16k at a time through c's buffer.
func fill[T uint16 | uint32 | uint64](c *Reader, dst []T, width int, decode func([]byte) T) {
	for len(dst) > 0 && c.err == nil {
		k := min(len(dst), 1<<14)
		if cap(c.buf) < width*k {
			c.buf = make([]byte, width*k)
		}
		b := c.buf[:width*k]
		c.Full(b)
		for i := range k {
			dst[i] = decode(b[width*i:])
		}
		dst = dst[k:]
	}
}
