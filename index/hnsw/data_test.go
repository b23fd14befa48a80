package hnsw

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// corpus is a deterministic synthetic embedding set with the structure
// real sentence embeddings have, which uniform random vectors (a worst
// case nothing real looks like) lack:
//
//   - a shared mean direction, so that unrelated vectors still have
//     cosine around 0.2-0.3, as with sentence models;
//   - topics: clusters whose sizes follow a power law, with centres in a
//     sub-dimensional subspace (intrinsic dimension sub, not dim);
//   - anisotropy: within a cluster, subspace axis j varies with scale
//     1/sqrt(1+j/8), so a few directions carry most of the variance;
//   - isotropic noise in all dim dimensions on top.
//
// Vector i is a pure function of (seed, i), so sets of any size can be
// generated in parallel and regenerated for re-ranking without storing
// them; queries are fresh draws from the same distribution.
type corpus struct {
	dim, sub int
	seed     uint64
	basis    []float32 // sub rows of dim
	mean     []float32 // dim
	centres  []float32 // clusters rows of sub
	spread   []float32 // clusters rows of sub
	clusters int
}

func newCorpus(dim int, seed uint64) *corpus {
	const sub, clusters = 48, 2000
	r := rand.New(rand.NewPCG(seed, 0))
	c := &corpus{dim: dim, sub: sub, seed: seed, clusters: clusters}
	c.basis = make([]float32, sub*dim)
	for i := range c.basis {
		c.basis[i] = float32(r.NormFloat64() / math.Sqrt(float64(dim)))
	}
	c.mean = make([]float32, dim)
	for i := range c.mean {
		c.mean[i] = float32(r.NormFloat64() / math.Sqrt(float64(dim)))
	}
	c.centres = make([]float32, clusters*sub)
	c.spread = make([]float32, clusters*sub)
	for k := range clusters {
		w := 0.5 + r.Float64() // cluster width varies
		for j := range sub {
			c.centres[k*sub+j] = float32(r.NormFloat64())
			c.spread[k*sub+j] = float32(w * 0.55 / math.Sqrt(1+float64(j)/8))
		}
	}
	return c
}

// vec writes vector i into dst (len dim).
func (c *corpus) vec(i uint64, dst []float32) {
	r := rand.New(rand.NewPCG(c.seed^0x9e3779b97f4a7c15, i))
	u := r.Float64()
	k := int(float64(c.clusters) * u * u) // power law: low k are big topics
	var z [64]float32
	for j := range c.sub {
		z[j] = c.centres[k*c.sub+j] + c.spread[k*c.sub+j]*float32(r.NormFloat64())
	}
	const noise = 0.35
	for d := range dst {
		dst[d] = 0.6*c.mean[d] + noise*float32(r.NormFloat64())/float32(math.Sqrt(float64(c.dim)))
	}
	for j := range c.sub {
		row := c.basis[j*c.dim : (j+1)*c.dim]
		zj := z[j] / float32(math.Sqrt(float64(c.sub)))
		for d, b := range row {
			dst[d] += zj * b
		}
	}
}

// query j is a draw from the same distribution as the corpus, never one
// of its vectors.
func (c *corpus) query(j uint64) []float32 {
	v := make([]float32, c.dim)
	c.vec(1<<40+j, v)
	return v
}

// vectors returns vectors lo..hi-1, generated on all cores.
func (c *corpus) vectors(lo, hi int) [][]float32 {
	out := make([][]float32, hi-lo)
	block := make([]float32, (hi-lo)*c.dim)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < hi-lo; i += workers {
				out[i] = block[i*c.dim : (i+1)*c.dim : (i+1)*c.dim]
				c.vec(uint64(lo+i), out[i])
			}
		}()
	}
	wg.Wait()
	return out
}
