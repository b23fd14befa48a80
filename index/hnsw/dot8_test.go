package hnsw

import (
	"math/rand/v2"
	"testing"
)

// The AVX2 kernel and the portable loop agree exactly at every length,
// tails included, and at the extremes of the code range.
func TestDot8MatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 1100; n++ {
		a, b := make([]int8, n), make([]int8, n+5) // b longer: dot8 reads len(a)
		for i := range a {
			a[i], b[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
		}
		if got, want := dot8(a, b), dot8Generic(a, b); got != want {
			t.Fatalf("n=%d: dot8 %d, generic %d", n, got, want)
		}
	}
	for _, c := range [][2]int8{{127, 127}, {-127, -127}, {127, -127}, {0, -127}} {
		a, b := make([]int8, 515), make([]int8, 515)
		for i := range a {
			a[i], b[i] = c[0], c[1]
		}
		if got, want := dot8(a, b), dot8Generic(a, b); got != want {
			t.Fatalf("%v: dot8 %d, generic %d", c, got, want)
		}
	}
}

func BenchmarkDot8_512(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y := make([]int8, 512), make([]int8, 512)
	for i := range x {
		x[i], y[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
	}
	b.Run("dispatch", func(b *testing.B) {
		for b.Loop() {
			_ = dot8(x, y)
		}
	})
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			_ = dot8Generic(x, y)
		}
	})
}
