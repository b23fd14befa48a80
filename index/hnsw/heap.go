package hnsw

// cand is a node with its approximate similarity to the query.
type cand struct {
	sim float32
	id  uint32
}

// The two heaps are written out rather than built on container/heap: the
// interface calls were a measurable share of a search's time, which is
// mostly heap operations and code dot products.

// bestHeap pops the most similar candidate first.
type bestHeap []cand

func (h *bestHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].sim >= s[i].sim {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *bestHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	*h = s
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && s[r].sim > s[l].sim {
			l = r
		}
		if s[i].sim >= s[l].sim {
			break
		}
		s[i], s[l] = s[l], s[i]
		i = l
	}
	return top
}

// worstHeap keeps the results so far with the least similar on top, so
// that a bounded pool drops its worst in O(log n).
type worstHeap []cand

func (h worstHeap) worst() float32 { return h[0].sim }

func (h *worstHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].sim <= s[i].sim {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *worstHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	h.down()
	return top
}

// down restores the heap after its root changed.
func (h worstHeap) down() {
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		if r := l + 1; r < n && h[r].sim < h[l].sim {
			l = r
		}
		if h[i].sim <= h[l].sim {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// offer adds c to a pool bounded at size n.
func (h *worstHeap) offer(c cand, n int) {
	if len(*h) < n {
		h.push(c)
	} else if c.sim > (*h)[0].sim {
		(*h)[0] = c
		h.down()
	}
}
