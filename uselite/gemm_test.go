package uselite

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

func randomMatrix(r *rand.Rand, n int) []float32 {
	m := make([]float32, n)
	for i := range m {
		m[i] = r.Float32()*2 - 1
	}
	return m
}

// TestMulPacked checks the micro-kernels (assembly where available) and
// the portable kernel against plain loops, over ragged shapes.
func TestMulPacked(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, sh := range [][3]int{{1, 1, 1}, {1, 7, 16}, {5, 3, 17}, {6, 512, 512}, {13, 256, 768}, {7, 33, 40}, {16, 512, 1536}, {3, 1536, 512}} {
		m, k, n := sh[0], sh[1], sh[2]
		a := randomMatrix(r, m*k)
		w := randomMatrix(r, k*n)
		bias := randomMatrix(r, n)
		for _, transposed := range []bool{false, true} {
			for _, relu := range []bool{false, true} {
				want := make([]float32, m*n)
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						s := float64(bias[j])
						for p := 0; p < k; p++ {
							wv := w[p*n+j]
							if transposed {
								wv = w[j*k+p]
							}
							s += float64(a[i*k+p]) * float64(wv)
						}
						if relu {
							s = math.Max(s, 0)
						}
						want[i*n+j] = float32(s)
					}
				}
				pm := packMatrix(w, k, n, transposed)
				for _, ks := range availableKernels() {
					got := make([]float32, m*n)
					var s gemmScratch
					mulPackedWith(&ks, got, a, m, pm, padBias(bias, pm), relu, &s)
					for i := range want {
						if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*math.Max(1, math.Abs(float64(want[i]))) {
							t.Fatalf("%s kernels, m=%d k=%d n=%d transposed=%v relu=%v: element %d = %g, want %g", ks.name, m, k, n, transposed, relu, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// BenchmarkMulPacked times each available kernel set on the model's
// typical products: a 16-token sentence through the FFN, and a small
// product whose weights stay in cache.
func BenchmarkMulPacked(b *testing.B) {
	for _, ks := range availableKernels() {
		for _, sh := range [][3]int{{16, 512, 1536}, {16, 1536, 512}, {12, 256, 256}} {
			m, k, n := sh[0], sh[1], sh[2]
			b.Run(fmt.Sprintf("%s/%dx%dx%d", ks.name, m, k, n), func(b *testing.B) {
				r := rand.New(rand.NewSource(1))
				a := randomMatrix(r, m*k)
				pm := packMatrix(randomMatrix(r, k*n), k, n, false)
				c := make([]float32, m*n)
				var s gemmScratch
				for i := 0; i < b.N; i++ {
					mulPackedWith(&ks, c, a, m, pm, nil, false, &s)
				}
				b.ReportMetric(float64(m*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
			})
		}
	}
}
