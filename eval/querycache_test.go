package eval

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
)

type countingEmbedder struct {
	amem.Embedder
	texts atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

func TestQueryCache(t *testing.T) {
	ctx := context.Background()
	inner := &countingEmbedder{Embedder: lexical.New(nil)}
	c := newQueryCache(inner)
	a, _ := c.Embed(ctx, []string{"where is Rex?"})
	a[0][0] = 42 // a caller's change must not reach the cache
	b, _ := c.Embed(ctx, []string{"where is Rex?"})
	if inner.texts.Load() != 1 || b[0][0] == 42 {
		t.Fatalf("%d texts embedded, cached vector %v", inner.texts.Load(), b[0][:1])
	}
	c.Embed(ctx, []string{"where is Rex?", "a batch"})
	if inner.texts.Load() != 3 {
		t.Fatalf("a batch was not passed through: %d texts", inner.texts.Load())
	}
	if newQueryCache(c) != c || c.Name() != inner.Name() {
		t.Fatal("wrapping twice or the name")
	}
}
