package hugepage

import (
	"runtime"
	"testing"
	"time"
)

func TestAligned(t *testing.T) {
	for _, c := range []struct {
		p, n, off, length uintptr
	}{
		{0, 0, 0, 0},
		{4096, 2*size - 1, 0, 0},      // under two huge pages: left alone
		{size, 2 * size, 0, 2 * size}, // aligned already
		{size + 8, 3 * size, size - 8, 2 * size},
		{1, 5 * size, size - 1, 4 * size},
	} {
		off, length := aligned(c.p, c.n)
		if off != c.off || length != c.length {
			t.Errorf("aligned(%#x, %#x) = %#x, %#x; want %#x, %#x", c.p, c.n, off, length, c.off, c.length)
		}
		if length > 0 && ((c.p+off)%size != 0 || length%size != 0 || off+length > c.n) {
			t.Errorf("aligned(%#x, %#x): not whole huge pages inside the block", c.p, c.n)
		}
	}
}

// Advising leaves a block's contents and every size of block alone.
func TestAdviseKeepsData(t *testing.T) {
	for _, n := range []int{0, 1, 1 << 10, 3 << 20} {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(i)
		}
		Advise(s)
		Advise(s[:0])
		for i := range s {
			if s[i] != float32(i) {
				t.Fatalf("n=%d: s[%d] = %v", n, i, s[i])
			}
		}
	}
}

// A block is zeroed, writable, counted while reachable and released
// after.
func TestBlock(t *testing.T) {
	if NewBlock(1000) != nil {
		t.Fatal("a 4 KB block mapped")
	}
	before := Mapped()
	b := NewBlock(3 << 20)
	if b == nil {
		if runtime.GOOS == "linux" {
			t.Fatal("no mapped block on Linux")
		}
		t.Skip("no mappings on this platform: the heap is the fallback")
	}
	f := b.Floats()
	if len(f) != 3<<20 || Mapped()-before != 12<<20 {
		t.Fatalf("len %d, mapped %d", len(f), Mapped()-before)
	}
	for i := range f {
		if f[i] != 0 {
			t.Fatalf("f[%d] = %v", i, f[i])
		}
		f[i] = float32(i)
	}
	if f[len(f)-1] != float32(len(f)-1) {
		t.Fatal("write lost")
	}
	runtime.KeepAlive(b)
	b, f = nil, nil
	deadline := time.Now().Add(5 * time.Second)
	for Mapped() != before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if Mapped() != before {
		t.Errorf("mapped %d after the block went, want %d", Mapped(), before)
	}
}
