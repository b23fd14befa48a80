//go:build amd64 && !purego

package index

import "golang.org/x/sys/cpu"

// useAVX2 is read once: AVX2 and FMA with the OS saving YMM state
// (x/sys/cpu checks both).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

// Dot is the inner product of two equal-length vectors: AVX2 with FMA
// where the CPU has them, else the portable loop.
func Dot(a, b []float32) float32 {
	if useAVX2 && len(a) > 0 {
		b = b[:len(a)]
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}
