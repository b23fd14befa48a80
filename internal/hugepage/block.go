package hugepage

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Block is a block of float32s outside the Go heap: an anonymous mapping
// advised for huge pages, which the kernel hands out zeroed. On the VMs
// this project measures on, a fresh 200 MB block on the heap cost 1.2 s
// before its first use, the runtime zeroing it a 4 KB page fault at a
// time; mapped so, 10 ms. Its memory is released by a cleanup once the
// Block is unreachable, so a slice of it must only be used while its
// Block is reachable: keep the Block beside the slice, and never let a
// slice of it escape alone.
type Block struct {
	floats []float32
}

// MinBlock is the smallest block worth a mapping of its own, in bytes:
// below two huge pages the heap does as well.
const MinBlock = 2 * size

var mapped atomic.Int64

// Mapped returns the bytes that live Blocks hold, for accounting beside
// the Go heap's own figures.
func Mapped() int64 { return mapped.Load() }

// NewBlock returns a zeroed block of n float32s, or nil where there is
// no mapping to be had (another OS, a failed mmap, n*4 under MinBlock):
// the caller then allocates on the heap.
func NewBlock(n int) *Block {
	if n*4 < MinBlock {
		return nil
	}
	mem, floats := mapFloats(n)
	if floats == nil {
		return nil
	}
	b := &Block{floats: floats}
	mapped.Add(int64(len(mem)))
	runtime.AddCleanup(b, func(mem []byte) {
		unmap(mem)
		mapped.Add(-int64(len(mem)))
	}, mem)
	return b
}

// Floats returns the whole block, of length n.
func (b *Block) Floats() []float32 { return b.floats }

// Settled returns Mapped once it has held still for a few milliseconds:
// the cleanups of blocks that a collection found unreachable run on
// their own goroutine, after it. For measuring memory after runtime.GC.
func Settled() int64 {
	last, still := Mapped(), 0
	for still < 3 {
		time.Sleep(2 * time.Millisecond)
		if m := Mapped(); m != last {
			last, still = m, 0
			continue
		}
		still++
	}
	return last
}
