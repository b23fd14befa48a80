package memory_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
)

// A search embeds its query on another goroutine while its indexes catch
// up: an error from either is the search's, and the embedding never
// outlives the search.
func TestSearchEmbeddingRunsBeside(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "e.db")
	mem := openAt(t, path, nil)
	mustAdd(t, mem, "ns", "Caroline went to the support group on Tuesday.")
	mem.Close()

	dims := lexical.New(nil).Dimensions()
	var finished atomic.Bool
	blocked := &mock.Embedder{Dims: dims, ModelName: "another-model", EmbedFunc: func(ctx context.Context, texts []string) ([][]float32, error) {
		defer finished.Store(true)
		<-ctx.Done() // until the search gives up on it
		return nil, ctx.Err()
	}}
	other := openOpts(t, path, memory.Options{Embedder: blocked})
	defer other.Close()
	_, err := other.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "support group", Mode: amem.SearchHybrid})
	if err == nil || !strings.Contains(err.Error(), "another-model") {
		t.Fatalf("search of a namespace another embedder wrote: %v, want the mismatch", err)
	}
	if !finished.Load() {
		t.Fatal("the query's embedding still ran after the search returned")
	}

	down := errors.New("model down")
	failing := &mock.Embedder{Dims: dims, ModelName: lexical.New(nil).Name(), EmbedFunc: func(context.Context, []string) ([][]float32, error) {
		return nil, down
	}}
	third := openOpts(t, path, memory.Options{Embedder: failing})
	defer third.Close()
	for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchHybrid} {
		if _, err := third.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "support group", Mode: mode}); !errors.Is(err, down) {
			t.Errorf("%s search with a failing embedder: %v, want %v", mode, err, down)
		}
	}
	res, err := third.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "support group", Mode: amem.SearchLexical})
	if err != nil || len(res) != 1 {
		t.Errorf("lexical search needs no embedding: %v, %v", res, err)
	}
}
