package offline

import (
	"container/list"
	"math"
	"sync"
)

// cosine returns the cosine similarity of a and b, or 0 when it is
// undefined (different lengths, a zero vector, NaNs): callers treat "no
// evidence" and "unrelated" alike, which is the safe side for linking.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	c := dot / math.Sqrt(na*nb)
	if math.IsNaN(c) {
		return 0
	}
	return clamp(c, -1, 1)
}

func clamp(x, lo, hi float64) float64 {
	switch {
	case math.IsNaN(x):
		return lo
	case x < lo:
		return lo
	case x > hi:
		return hi
	}
	return x
}

// centroid returns the normalised mean of vs, all of length dim.
func centroid(vs [][]float32, dim int) []float32 {
	sum := make([]float64, dim)
	for _, v := range vs {
		for i := range sum {
			sum[i] += float64(v[i])
		}
	}
	var n float64
	for _, x := range sum {
		n += x * x
	}
	out := make([]float32, dim)
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range sum {
		out[i] = float32(x / n)
	}
	return out
}

// vecCache keeps the vectors of recently embedded texts, the least
// recently used dropped first. The vectors are shared: callers only read
// them. It is safe for concurrent use; a nil *vecCache keeps nothing.
type vecCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cached, most recently used first
	byKey map[string]*list.Element
}

type cached struct {
	text string
	vec  []float32
}

func newVecCache(max int) *vecCache {
	if max <= 0 {
		return nil
	}
	return &vecCache{max: max, order: list.New(), byKey: make(map[string]*list.Element)}
}

func (c *vecCache) get(text string) []float32 {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[text]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).vec
}

func (c *vecCache) put(text string, vec []float32) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[text]; ok {
		e.Value.(*cached).vec = vec
		c.order.MoveToFront(e)
		return
	}
	c.byKey[text] = c.order.PushFront(&cached{text, vec})
	if c.order.Len() > c.max {
		old := c.order.Remove(c.order.Back()).(*cached)
		delete(c.byKey, old.text)
	}
}
