package hnsw

import "math"

// quantise writes v, L2-normalised, as int8 codes with one scale per
// vector (v/|v| ≈ code*scale) and returns the scale. A per-vector scale,
// rather than one per dimension, needs no training pass and no
// re-quantising when later vectors fall outside an earlier range, so the
// index can follow a change feed from empty. Codes stay in [-127, 127]:
// dot8's AVX2 kernel relies on it. A zero vector gets scale 0.
//
// It runs once per vector loaded and once per float row checked when a
// float file is attached (a million at 1M notes), so it is a tight
// float32 loop: four accumulators for the norm, and rounding half away
// from zero by adding ±0.5 and truncating, 5x faster than float64 sums
// and math.Round. It must stay deterministic: a float row is checked by
// quantising it again and comparing with the code saved.
func quantise(dst []int8, v []float32) float32 {
	dst = dst[:len(v)]
	// The largest magnitude is found on the bits: for non-negative
	// floats their order is their bits' order, and a compare of integers
	// costs less than the builtin max, which must order NaNs and zeros.
	var n0, n1, n2, n3 float32
	var m0, m1, m2, m3 uint32
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a, b, c, d := v[i], v[i+1], v[i+2], v[i+3]
		n0 += a * a
		n1 += b * b
		n2 += c * c
		n3 += d * d
		m0 = max(m0, math.Float32bits(a)&^(1<<31))
		m1 = max(m1, math.Float32bits(b)&^(1<<31))
		m2 = max(m2, math.Float32bits(c)&^(1<<31))
		m3 = max(m3, math.Float32bits(d)&^(1<<31))
	}
	for ; i < len(v); i++ {
		n0 += v[i] * v[i]
		m0 = max(m0, math.Float32bits(v[i])&^(1<<31))
	}
	norm := float64((n0 + n1) + (n2 + n3))
	maxAbs := math.Float32frombits(max(max(m0, m1), max(m2, m3)))
	if math.IsInf(norm, 0) || norm == 0 && maxAbs > 0 {
		// Entries past 1.8e19 overflow float32 squares, below 1e-19
		// underflow them.
		norm = 0
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
	}
	if norm == 0 || maxAbs == 0 || math.IsNaN(norm) {
		clear(dst)
		return 0
	}
	// Codes span the largest entry: scale the raw vector to 127 at its
	// largest entry, and fold the normalisation into the returned scale.
	inv := 127 / maxAbs
	if math.IsInf(float64(inv), 0) {
		// Largest entry subnormal: scale in float64.
		for i, x := range v {
			dst[i] = int8(math.Round(float64(x) * 127 / float64(maxAbs)))
		}
		return float32(float64(maxAbs) / 127 / math.Sqrt(norm))
	}
	for i, x := range v {
		r := x * inv
		// ±0.5 with r's sign, then truncation: round half away from zero.
		h := math.Float32frombits(math.Float32bits(r)&(1<<31) | 0x3f000000)
		dst[i] = int8(r + h)
	}
	return float32(float64(maxAbs) / 127 / math.Sqrt(norm))
}

func abs32(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
}
