package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/hugepage"
	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/offline"
	"github.com/amem-dev/amem/sqlite"
)

// BenchmarkScale measures, per namespace size (enriched LoCoMo notes, as
// in BenchmarkSearchModes, on the offline default): opening (a new
// process's first hybrid search, which loads both indexes), the heap the
// indexes keep per note, the p50 of a search in each mode over the dev
// split's questions, and the p50 of an Add that runs the whole method
// (construct, the nearest candidates, links, evolution). From
// kernel.DefaultApproximateFrom notes the namespace is searched through the
// approximate index, built in the background after the open (build-s:
// from the open until it is saved and swapped in); the searches and Adds
// are timed after that. Run one size at a time: -bench
// 'BenchmarkScale/1000000' -benchtime 1x.
func BenchmarkScale(b *testing.B) {
	dir := needModel(b)
	ctx := context.Background()
	emb, err := NewEmbedder(ctx, Config{Path: filepath.Join(b.TempDir(), "x.db"), ModelDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	var data *locomoNotes
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			if data == nil {
				d := loadLoCoMoNotes(b, emb)
				data = &d
			}
			path := filepath.Join(b.TempDir(), "s.db")
			st, err := sqlite.Open(ctx, path, nil)
			if err != nil {
				b.Fatal(err)
			}
			fillLoCoMo(b, st, emb, "bench", data.notes, n)
			st.Close()
			for b.Loop() {
				runtime.GC()
				before := heapNow()
				t0 := time.Now()
				st, err := sqlite.Open(ctx, path, nil)
				if err != nil {
					b.Fatal(err)
				}
				idxDir := b.TempDir()
				mem, err := memory.Open(ctx, st, &memory.Options{Embedder: emb, Curator: offline.New(emb, nil), Search: memory.SearchOptions{LexicalWeight: 4}, Indexes: kernel.Options{IndexDir: idxDir}})
				if err != nil {
					b.Fatal(err)
				}
				search := func(q string, mode amem.SearchMode) time.Duration {
					t0 := time.Now()
					if _, err := mem.Search(ctx, amem.SearchRequest{Namespace: "bench", Query: q, K: 10, Mode: mode}); err != nil {
						b.Fatal(err)
					}
					return time.Since(t0)
				}
				search(data.questions[0], amem.SearchHybrid)
				b.ReportMetric(time.Since(t0).Seconds(), "open-s")
				if n >= kernel.DefaultApproximateFrom {
					for {
						if _, err := os.Stat(amemLexFile(idxDir)); err == nil {
							break
						}
						time.Sleep(100 * time.Millisecond)
					}
					search(data.questions[0], amem.SearchHybrid) // swaps the built index in
					b.ReportMetric(time.Since(t0).Seconds(), "build-s")
				}
				runtime.GC()
				b.ReportMetric(float64(heapNow()-before)/float64(n), "heap-B/note")

				modes := []amem.SearchMode{amem.SearchVector, amem.SearchLexical, amem.SearchHybrid}
				took := make([][]time.Duration, len(modes))
				for i := range 100 {
					q := data.questions[(i*7)%len(data.questions)]
					for m, mode := range modes {
						took[m] = append(took[m], search(q, mode))
					}
				}
				for m, mode := range modes {
					slices.Sort(took[m])
					b.ReportMetric(ms(quantile(took[m], 0.5)), string(mode)+"-p50-ms")
				}

				var adds []time.Duration
				for i := range 20 {
					t0 := time.Now()
					if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "bench", Content: data.notes[(i*61)%len(data.notes)].Content}); err != nil {
						b.Fatal(err)
					}
					adds = append(adds, time.Since(t0))
				}
				slices.Sort(adds)
				b.ReportMetric(ms(quantile(adds, 0.5)), "add-p50-ms")
				mem.Close()
			}
		})
	}
}

// heapNow is the heap in use, and the blocks mapped outside it for
// vectors (index.Flat's), which are as much the indexes' memory.
func heapNow() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + uint64(hugepage.Settled())
}
