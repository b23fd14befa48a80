package local

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem/locomo"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
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
// offline default (use-lite, offline curator), adding the LoCoMo dev
// split's turns in order to a namespace that already holds the 100 before
// them: the texts it embeds per Add, and the Add's time in
// single-sentence embedding times, the reference being the next turn's
// content embedded alone, timed beside each Add (issue 12 asks for at
// most 6). "content" is the default (local.EmbedText); "paper" embeds
// the paper's text, the default before, for the ratio between the two.
func BenchmarkAddEmbeddings(b *testing.B) {
	for _, name := range []string{EmbedTextName(CuratorOffline), "paper"} {
		b.Run(name, func(b *testing.B) { benchAddEmbeddings(b, EmbedTexts[name]) })
	}
}

func benchAddEmbeddings(b *testing.B, embedText func(amem.Note) string) {
	dir := needModel(b)
	if _, err := os.Stat(locomoDev); err != nil {
		b.Fatalf("this benchmark reads the LoCoMo dev split at %s: %v", locomoDev, err)
	}
	convs, err := locomo.Load(locomoDev)
	if err != nil {
		b.Fatal(err)
	}
	var turns []locomo.Turn
	for _, c := range convs {
		turns = append(turns, c.Turns()...)
	}
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
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: emb, Curator: offline.New(emb, nil), Search: memory.SearchOptions{LexicalWeight: 4}, EmbedText: embedText})
	if err != nil {
		b.Fatal(err)
	}
	defer mem.Close()
	add := func(i int) error {
		t := turns[i%len(turns)]
		_, err := mem.Add(ctx, amem.AddRequest{Namespace: "e", Content: t.Content(), EventTime: t.Time})
		return err
	}
	const warm = 100 // a namespace with neighbours to link and evolve
	for i := range warm {
		if err := add(i); err != nil {
			b.Fatal(err)
		}
	}
	emb.texts.Store(0)
	var adds, one time.Duration
	i := warm
	for b.Loop() {
		t0 := time.Now()
		if err := add(i); err != nil {
			b.Fatal(err)
		}
		adds += time.Since(t0)
		t0 = time.Now()
		if _, err := base.Embed(ctx, []string{turns[(i+1)%len(turns)].Content()}); err != nil {
			b.Fatal(err)
		}
		one += time.Since(t0)
		i++
	}
	b.ReportMetric(float64(emb.texts.Load())/float64(b.N), "texts/add")
	b.ReportMetric(adds.Seconds()/one.Seconds(), "embed-times/add")
}
