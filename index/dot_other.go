//go:build !amd64 || purego

package index

// Dot is the inner product of two equal-length vectors.
func Dot(a, b []float32) float32 { return dotGeneric(a, b) }
