//go:build !amd64 || purego

package hnsw

// dot8 is the inner product of two equal-length code vectors.
func dot8(a, b []int8) int32 { return dot8Generic(a, b) }

// prefetchRows is a no-op without the assembly.
func prefetchRows(base *byte, stride int, ids *uint32, n, lines int) {}
