package local

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/offline"
	"github.com/amem-dev/amem/sqlite"
)

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	amem.Embedder
	texts atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

// BenchmarkAddEmbeddings measures what the embedder costs an Add on the
// offline default (use-lite, offline curator): the texts it embeds per
// Add, and the Add's time in single-sentence embedding times, the
// reference being one sentence embedded alone in the same run (issue 12
// asks for at most 6).
func BenchmarkAddEmbeddings(b *testing.B) {
	dir := needModel(b)
	ctx := context.Background()
	base, err := NewEmbedder(ctx, Config{Path: filepath.Join(b.TempDir(), "x.db"), ModelDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	emb := &countingEmbedder{Embedder: base}
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "e.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	mem, err := amem.Open(ctx, st, &amem.Options{Embedder: emb, Curator: offline.New(emb, nil), LexicalWeight: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer mem.Close()
	text := benchTurn
	for i := range 50 { // a namespace with neighbours to link and evolve
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "e", Content: text(i)}); err != nil {
			b.Fatal(err)
		}
	}
	emb.texts.Store(0)
	var adds, one time.Duration
	i := 50
	for b.Loop() {
		t0 := time.Now()
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "e", Content: text(i)}); err != nil {
			b.Fatal(err)
		}
		adds += time.Since(t0)
		t0 = time.Now()
		if _, err := base.Embed(ctx, []string{text(i + 1)}); err != nil {
			b.Fatal(err)
		}
		one += time.Since(t0)
		i++
	}
	b.ReportMetric(float64(emb.texts.Load())/float64(b.N), "texts/add")
	b.ReportMetric(adds.Seconds()/one.Seconds(), "embed-times/add")
}
