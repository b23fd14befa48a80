//go:build amd64 && !purego

package hnsw

import "golang.org/x/sys/cpu"

// useAVX2 is read once; x/sys/cpu also checks that the OS saves YMM state.
var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func dot8AVX2(a, b *int8, n int) int32

// dot8 is the inner product of two equal-length code vectors whose
// entries lie in [-127, 127] (the AVX2 kernel's multiply would saturate
// on -128*-128 pairs; the quantiser never produces -128).
func dot8(a, b []int8) int32 {
	if useAVX2 && len(a) > 0 {
		b = b[:len(a)]
		return dot8AVX2(&a[0], &b[0], len(a))
	}
	return dot8Generic(a, b)
}

//go:noescape
func prefetchRows(base *byte, stride int, ids *uint32, n, lines int)
