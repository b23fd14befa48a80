package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/sqlite"
)

// BenchmarkApproximate compares, on one namespace of enriched LoCoMo
// notes (as BenchmarkScale), exact search (index.Flat) with the
// approximate index, in one run so that both see the same machine:
//
//   - exact-open-s: a new process's first vector search (loads a Flat);
//   - build-s: first open with approximate search on and no saved index:
//     from the first search (answered exactly) until the background build
//     is saved and swapped in;
//   - ann-open-s: a new process's first vector search with the saved
//     index (reads it, catches up, loads the full-text index);
//   - heap-B/note of each (vector and full-text indexes together) and
//     ann/exact-heap, their ratio;
//   - vector-p50/p99-ms of Memory.Search (vector mode, k=10, no linked
//     notes) on one core (GOMAXPROCS 1), the query's embedding cached so
//     that the index, the re-ranking read and the loading of the hits are
//     what is timed;
//   - recall@10 of the approximate searches against the exact ones (a hit
//     counts if its cosine reaches the exact 10th's).
//
// One size at a time: -bench 'BenchmarkApproximate/100000' -benchtime 1x.
func BenchmarkApproximate(b *testing.B) {
	dir := needModel(b)
	ctx := context.Background()
	base, err := NewEmbedder(ctx, Config{Path: filepath.Join(b.TempDir(), "x.db"), ModelDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	var data *locomoNotes
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			if data == nil {
				d := loadLoCoMoNotes(b, base)
				data = &d
			}
			emb := &cachedEmbedder{Embedder: base}
			qs := data.questions[:min(300, len(data.questions))]
			if _, err := emb.Embed(ctx, qs); err != nil {
				b.Fatal(err)
			}
			tmp := b.TempDir()
			path, idxDir := filepath.Join(tmp, "s.db"), filepath.Join(tmp, "ann")
			st, err := sqlite.Open(ctx, path, nil)
			if err != nil {
				b.Fatal(err)
			}
			fillLoCoMo(b, st, emb, "bench", data.notes, n)
			st.Close()
			for b.Loop() {
				open := func(from int) *amem.Memory {
					st, err := sqlite.Open(ctx, path, nil)
					if err != nil {
						b.Fatal(err)
					}
					mem, err := amem.Open(ctx, st, &amem.Options{Embedder: emb, ApproximateFrom: from, IndexDir: idxDir})
					if err != nil {
						b.Fatal(err)
					}
					return mem
				}
				search := func(mem *amem.Memory, q string) []amem.Result {
					res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "bench", Query: q, K: 10, Mode: amem.SearchVector, LinksPerHit: -1})
					if err != nil {
						b.Fatal(err)
					}
					return res
				}
				// The heap a Memory holds: live heap with it open, less
				// live heap once it is closed and dropped (measured so,
				// not against the heap before it opened, which the
				// previous phase's garbage could inflate).
				heapPer := func(mem **amem.Memory) float64 {
					runtime.GC()
					with := heapNow()
					(*mem).Close()
					*mem = nil
					runtime.GC()
					runtime.GC()
					return (float64(with) - float64(heapNow())) / float64(n)
				}
				timed := func(mem *amem.Memory) (p50, p99 float64, out [][]amem.Result) {
					prev := runtime.GOMAXPROCS(1)
					defer runtime.GOMAXPROCS(prev)
					var took []time.Duration
					for _, q := range qs {
						t0 := time.Now()
						res := search(mem, q)
						took = append(took, time.Since(t0))
						out = append(out, res)
					}
					slices.Sort(took)
					return ms(quantile(took, 0.5)), ms(quantile(took, 0.99)), out
				}

				// Exact.
				mem := open(-1)
				t0 := time.Now()
				search(mem, qs[0])
				b.ReportMetric(time.Since(t0).Seconds(), "exact-open-s")
				p50, p99, exact := timed(mem)
				b.ReportMetric(p50, "exact-p50-ms")
				b.ReportMetric(p99, "exact-p99-ms")
				exactHeap := heapPer(&mem)
				b.ReportMetric(exactHeap, "exact-heap-B/note")

				// Approximate, first open: built in the background.
				os.RemoveAll(idxDir)
				mem = open(0)
				t0 = time.Now()
				search(mem, qs[0])
				b.ReportMetric(time.Since(t0).Seconds(), "first-answer-s")
				for {
					if _, err := os.Stat(amemANNFile(idxDir)); err == nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				search(mem, qs[0]) // swaps the built index in
				b.ReportMetric(time.Since(t0).Seconds(), "build-s")
				mem.Close()
				mem = nil

				// Approximate, reopened from the saved index.
				mem = open(0)
				t0 = time.Now()
				search(mem, qs[0])
				b.ReportMetric(time.Since(t0).Seconds(), "ann-open-s")
				p50, p99, approx := timed(mem)
				b.ReportMetric(p50, "ann-p50-ms")
				b.ReportMetric(p99, "ann-p99-ms")
				annHeap := heapPer(&mem)
				b.ReportMetric(annHeap, "ann-heap-B/note")
				b.ReportMetric(annHeap/exactHeap, "ann/exact-heap")

				// recall@10 as defined above; turn-recall@10 counts a hit
				// if it is a copy of a turn among the exact top 10's
				// (fillLoCoMo repeats each turn n/len(base) times with a
				// little noise, and telling those copies apart by that
				// noise is most of what strict recall asks at 1M);
				// gap-10th is the mean cosine by which the approximate
				// 10th falls short of the exact 10th.
				var hits, turnHits, want int
				var gap float64
				turn := func(id string) string {
					var i int
					fmt.Sscanf(id, "01H%d", &i)
					return data.notes[i%len(data.notes)].Content
				}
				for i := range exact {
					want += len(exact[i])
					if len(exact[i]) == 0 {
						continue
					}
					last := exact[i][len(exact[i])-1].Score
					turns := map[string]bool{}
					for _, r := range exact[i] {
						turns[turn(r.Note.ID)] = true
					}
					for _, r := range approx[i] {
						if r.Score >= last-1e-5 {
							hits++
						}
						if turns[turn(r.Note.ID)] {
							turnHits++
						}
					}
					if len(approx[i]) > 0 {
						gap += last - approx[i][len(approx[i])-1].Score
					}
				}
				b.ReportMetric(float64(hits)/float64(want), "recall@10")
				b.ReportMetric(float64(turnHits)/float64(want), "turn-recall@10")
				b.ReportMetric(gap/float64(len(exact)), "gap-10th")
			}
		})
	}
}

// amemANNFile is the only file a one-namespace index directory holds.
func amemANNFile(dir string) string {
	m, _ := filepath.Glob(filepath.Join(dir, "[0-9a-f]*.hnsw"))
	if len(m) == 0 {
		return filepath.Join(dir, "none")
	}
	return m[0]
}

// cachedEmbedder remembers the vectors of the texts it embedded, so that
// a benchmark of searching does not time the model.
type cachedEmbedder struct {
	amem.Embedder
	mu   sync.Mutex
	seen map[string][]float32
}

func (c *cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	out := make([][]float32, len(texts))
	var miss []string
	for i, t := range texts {
		if v, ok := c.seen[t]; ok {
			out[i] = slices.Clone(v)
		} else {
			miss = append(miss, t)
		}
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vecs, err := c.Embedder.Embed(ctx, miss)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string][]float32{}
	}
	j := 0
	for i, t := range texts {
		if out[i] == nil {
			c.seen[t] = slices.Clone(vecs[j])
			out[i] = vecs[j]
			j++
		}
	}
	return out, nil
}
