package hnsw

import "math"

// quantise writes v, L2-normalised, as int8 codes with one scale per
// vector (v/|v| ≈ code*scale) and returns the scale. A per-vector scale,
// rather than one per dimension, needs no training pass and no
// re-quantising when later vectors fall outside an earlier range, so the
// index can follow a change feed from empty. Codes stay in [-127, 127]:
// dot8's AVX2 kernel relies on it. A zero vector gets scale 0.
func quantise(dst []int8, v []float32) float32 {
	var norm float64
	var maxAbs float32
	for _, x := range v {
		norm += float64(x) * float64(x)
		maxAbs = max(maxAbs, abs32(x))
	}
	if norm == 0 || maxAbs == 0 {
		clear(dst)
		return 0
	}
	// Codes span the largest entry: scale the raw vector to 127 at its
	// largest entry, and fold the normalisation into the returned scale.
	inv := 127 / maxAbs
	for i, x := range v {
		dst[i] = int8(math.Round(float64(x * inv)))
	}
	return float32(float64(maxAbs) / 127 / math.Sqrt(norm))
}

func abs32(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
}
