package eval

import (
	"context"
	"slices"
	"sync"

	"github.com/amem-dev/amem"
)

// queryCacheSize bounds the cached vectors: a LoCoMo conversation has
// about 200 questions, and the single-text calls of an ingest (one per
// note and per re-embedded neighbour) should not crowd them out forever.
const queryCacheSize = 20000

// queryCache remembers the vectors of single-text Embed calls, which is
// how a search embeds its query: the evaluation asks each question several
// times (the context list, the deeper search, every grid point of a
// cross-validation), and the embedder is deterministic, so the vectors
// are the same. Batches (the curator's phrases) pass through.
type queryCache struct {
	amem.Embedder
	mu sync.Mutex
	m  map[string][]float32
}

func newQueryCache(e amem.Embedder) *queryCache {
	if c, ok := e.(*queryCache); ok {
		return c
	}
	return &queryCache{Embedder: e, m: map[string][]float32{}}
}

func (c *queryCache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) != 1 {
		return c.Embedder.Embed(ctx, texts)
	}
	c.mu.Lock()
	v, ok := c.m[texts[0]]
	c.mu.Unlock()
	if ok {
		// A copy: callers may normalise or keep what they are given.
		return [][]float32{slices.Clone(v)}, nil
	}
	vs, err := c.Embedder.Embed(ctx, texts)
	if err != nil || len(vs) != 1 {
		return vs, err
	}
	c.mu.Lock()
	if len(c.m) < queryCacheSize {
		c.m[texts[0]] = slices.Clone(vs[0])
	}
	c.mu.Unlock()
	return vs, nil
}
