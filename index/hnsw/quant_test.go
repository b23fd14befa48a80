package hnsw

import (
	"math"
	"math/rand/v2"
	"testing"
)

// quantiseRef is the plain float64 quantiser quantise must agree with.
func quantiseRef(dst []int8, v []float32) float32 {
	var norm float64
	var maxAbs float64
	for _, x := range v {
		norm += float64(x) * float64(x)
		maxAbs = max(maxAbs, math.Abs(float64(x)))
	}
	if norm == 0 {
		clear(dst)
		return 0
	}
	for i, x := range v {
		dst[i] = int8(math.Round(float64(x) * 127 / maxAbs))
	}
	return float32(maxAbs / 127 / math.Sqrt(norm))
}

func TestQuantiseMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 3, 4, 7, 64, 512, 513} {
		got, want := make([]int8, dim), make([]int8, dim)
		for range 200 {
			v := make([]float32, dim)
			scale := float32(math.Pow(10, float64(r.IntN(40)-20)))
			for i := range v {
				v[i] = float32(r.NormFloat64()) * scale
			}
			gs, ws := quantise(got, v), quantiseRef(want, v)
			if math.Abs(float64(gs-ws)) > 1e-5*float64(ws) {
				t.Fatalf("dim %d: scale %g, reference %g", dim, gs, ws)
			}
			for i := range got {
				// float32 and float64 may round a value at .5 apart.
				if d := int(got[i]) - int(want[i]); d < -1 || d > 1 || got[i] == -128 {
					t.Fatalf("dim %d: code %d is %d, reference %d", dim, i, got[i], want[i])
				}
			}
		}
	}
	for _, v := range [][]float32{{0, 0, 0}, {3e38, -3e38, 1}, {1e-40, 0, 0}} {
		got, want := make([]int8, len(v)), make([]int8, len(v))
		if gs, ws := quantise(got, v), quantiseRef(want, v); math.Abs(float64(gs-ws)) > 1e-5*float64(ws) || string(int8Bytes(got)) != string(int8Bytes(want)) {
			t.Errorf("%v: %v %g, reference %v %g", v, got, gs, want, ws)
		}
	}
}

func int8Bytes(c []int8) []byte {
	b := make([]byte, len(c))
	for i, x := range c {
		b[i] = byte(x)
	}
	return b
}

func BenchmarkQuantise(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, 512)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	dst := make([]int8, len(v))
	b.Run("tight", func(b *testing.B) {
		for b.Loop() {
			quantise(dst, v)
		}
	})
	b.Run("float64", func(b *testing.B) {
		for b.Loop() {
			quantiseRef(dst, v)
		}
	})
}
