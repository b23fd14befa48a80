package hugepage

import "testing"

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
