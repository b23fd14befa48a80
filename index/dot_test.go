package index

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The SIMD kernel agrees with the portable loop at every length, tails
// included, within float32 rounding of a different summation order.
func TestDotMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 1100; n++ {
		a, b := make([]float32, n), make([]float32, n+3) // b longer: Dot reads len(a)
		var mag float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			mag += math.Abs(float64(a[i] * b[i]))
		}
		got, want := Dot(a, b), dotGeneric(a, b)
		if d := math.Abs(float64(got - want)); d > 1e-5*(mag+1) {
			t.Fatalf("n=%d: Dot %v, generic %v", n, got, want)
		}
	}
}

func BenchmarkDot512(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float32, 512), make([]float32, 512)
	for i := range x {
		x[i], y[i] = r.Float32(), r.Float32()
	}
	b.Run("dispatch", func(b *testing.B) {
		for b.Loop() {
			_ = Dot(x, y)
		}
	})
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			_ = dotGeneric(x, y)
		}
	})
}
