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
	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

// BenchmarkApproximate compares, on one namespace of enriched LoCoMo-like
// notes, exact search (index.Flat) with the approximate index, in one run
// so that both see the same machine, on two corpora:
//
//   - mix (fillMixed): each note a weighted mix of two or three of the
//     dev split's turns, vectors and texts, so notes are distinct but keep
//     the real embedding geometry: what a large namespace looks like;
//   - dup (fillLoCoMo, as BenchmarkScale): the turns repeated with a
//     little noise, about 690 near-copies of each at 1M, a stress case:
//     the exact top 10 is then decided by noise among hundreds of
//     near-equal copies, and an HNSW graph links such clusters to each
//     other only thinly.
//
// It reports:
//
//   - exact-open-s: a new process's first vector search (loads a Flat);
//   - first-answer-s, build-s: first open with approximate search on and
//     no saved index: the first search (answered exactly), then until the
//     background build is saved and swapped in;
//   - ann-open-s: a new process's first vector search with the saved
//     index (reads it, catches up, loads the full-text index);
//   - heap-B/note of each (vector and full-text indexes together) and
//     ann/exact-heap, their ratio;
//   - vector-p50/p99-ms of Memory.Search (vector mode, k=10, no linked
//     notes) on one core (GOMAXPROCS 1), the query's embedding cached so
//     that the index, the re-ranking read and the loading of the hits are
//     what is timed; approximate pools over annRounds rounds, with the
//     best round's CPU p50 as cpu-best-p50-ms;
//   - recall@10 of the approximate searches against the exact ones:
//     strictly (the share of the exact top 10's notes returned), and
//     recall-eps@10 as ann-benchmarks counts it (a hit counts if its
//     cosine is at least the exact 10th's less 0.001); on dup also
//     turn-recall@10 (a hit counts if it is a copy of a turn among the
//     exact top 10's) and gap-10th, the mean cosine by which the
//     approximate 10th falls short of the exact 10th.
//
// One size and corpus at a time, the size anchored (100000 also matches
// 1000000): -bench 'BenchmarkApproximate/^100000$/mix' -benchtime 1x (a
// 1M run takes most of an hour on two cores, most of it filling the
// store). Environment knobs (see annBenchEnv): AMEM_BENCH_STORE keeps the
// stores in a directory to reuse, AMEM_BENCH_REUSE also reuses the saved
// indexes there (no build measured), AMEM_BENCH_EFS lists the pools
// measured, AMEM_BENCH_PROFILE writes a CPU profile of the last pool's
// searches.
func BenchmarkApproximate(b *testing.B) {
	dir := needModel(b)
	ctx := context.Background()
	base, err := NewEmbedder(ctx, Config{Path: filepath.Join(b.TempDir(), "x.db"), ModelDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	var data *locomoNotes
	corpora := []struct {
		name string
		fill func(*testing.B, amem.Store, amem.Embedder, string, []amem.Note, int)
	}{{"mix", fillMixed}, {"dup", fillLoCoMo}}
	env := annBenchEnvFrom(b)
	efs := env.efs
	for _, n := range []int{100_000, 1_000_000} {
		for _, corpus := range corpora {
			b.Run(fmt.Sprintf("%d/%s", n, corpus.name), func(b *testing.B) {
				if data == nil {
					d := loadLoCoMoNotes(b, base)
					data = &d
				}
				emb := &cachedEmbedder{Embedder: base}
				qs := data.questions[:min(300, len(data.questions))]
				if _, err := emb.Embed(ctx, qs); err != nil {
					b.Fatal(err)
				}
				path, idxDir, filled := env.storeAt(b, n, corpus.name)
				if !filled {
					st, err := sqlite.Open(ctx, path, nil)
					if err != nil {
						b.Fatal(err)
					}
					t0 := time.Now()
					corpus.fill(b, st, emb, "bench", data.notes, n)
					st.Close()
					env.markFilled(b, path)
					b.ReportMetric(time.Since(t0).Seconds(), "fill-s")
				}
				for b.Loop() {
					// Each pool's span timer, by pool (not by Memory: a map
					// of Memories would keep closed ones, and their heap,
					// reachable).
					phases := map[int]*phaseCPU{}
					open := func(from, ef int) *memory.Memory {
						st, err := sqlite.Open(ctx, path, nil)
						if err != nil {
							b.Fatal(err)
						}
						ph := newPhaseCPU()
						mem, err := memory.Open(ctx, st, &memory.Options{Embedder: emb, Indexes: kernel.Options{ApproximateFrom: from, ApproximateEf: ef, IndexDir: idxDir}, TracerProvider: ph})
						phases[ef] = ph
						if err != nil {
							b.Fatal(err)
						}
						return mem
					}
					search := func(mem *memory.Memory, q string) []amem.Result {
						res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "bench", Query: q, K: 10, Mode: amem.SearchVector, LinksPerHit: -1})
						if err != nil {
							b.Fatal(err)
						}
						return res
					}
					// The heap a Memory holds: live heap with it open, less
					// live heap once it is closed and dropped (measured so,
					// not against the heap before it opened, which the
					// previous phase's garbage could inflate). Three
					// collections each side: a closed Memory's store holds
					// objects with finalizers, which keep what they reach
					// through one more collection.
					heapPer := func(mem **memory.Memory) float64 {
						runtime.GC()
						runtime.GC()
						runtime.GC()
						with := heapNow()
						(*mem).Close()
						*mem = nil
						runtime.GC()
						runtime.GC()
						runtime.GC()
						return (float64(with) - float64(heapNow())) / float64(n)
					}
					// timed runs every question once on one core and returns
					// the p50 and p99 of wall time, and of the CPU time the
					// searching thread used (on a shared machine, wall time
					// also counts waits for a core).
					timed := func(mem *memory.Memory, profile bool) (took, cpu []time.Duration, out [][]amem.Result) {
						prev := runtime.GOMAXPROCS(1)
						defer runtime.GOMAXPROCS(prev)
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
						if profile {
							defer env.profile(b)()
						}
						for _, q := range qs {
							c0, ok := threadCPU()
							t0 := time.Now()
							res := search(mem, q)
							took = append(took, time.Since(t0))
							if c1, _ := threadCPU(); ok {
								cpu = append(cpu, c1-c0)
							}
							out = append(out, res)
						}
						return took, cpu, out
					}
					report := func(prefix string, p50, p99, cpu50, cpu99 float64) {
						b.ReportMetric(p50, prefix+"-p50-ms")
						b.ReportMetric(p99, prefix+"-p99-ms")
						if cpu50 > 0 {
							b.ReportMetric(cpu50, prefix+"-cpu-p50-ms")
							b.ReportMetric(cpu99, prefix+"-cpu-p99-ms")
						}
					}

					// Exact, or its results and metrics from an earlier
					// run on the same store.
					var mem *memory.Memory
					var t0 time.Time
					exact, exactMetrics, cached := env.exactCached(filepath.Dir(path))
					if !cached {
						exactMetrics = map[string]float64{}
						mem = open(-1, 0)
						t0 = time.Now()
						search(mem, qs[0])
						exactMetrics["exact-open-s"] = time.Since(t0).Seconds()
						var took, cpu []time.Duration
						took, cpu, exact = timed(mem, false)
						exactMetrics["exact-p50-ms"], exactMetrics["exact-p99-ms"] = msOf(took, 0.5), msOf(took, 0.99)
						exactMetrics["exact-cpu-p50-ms"], exactMetrics["exact-cpu-p99-ms"] = msOf(cpu, 0.5), msOf(cpu, 0.99)
						exactMetrics["exact-rss-MiB"] = rssMiB()
						exactMetrics["exact-heap-B/note"] = heapPer(&mem)
						env.cacheExact(b, filepath.Dir(path), exact, exactMetrics)
					}
					for name, v := range exactMetrics {
						b.ReportMetric(v, name)
					}
					exactHeap := exactMetrics["exact-heap-B/note"]

					// Approximate, first open: built in the background.
					if _, err := os.Stat(amemLexFile(idxDir)); err != nil || !env.reuse {
						os.RemoveAll(idxDir)
						mem = open(0, 0)
						t0 = time.Now()
						search(mem, qs[0])
						b.ReportMetric(time.Since(t0).Seconds(), "first-answer-s")
						for {
							if _, err := os.Stat(amemLexFile(idxDir)); err == nil {
								break
							}
							time.Sleep(100 * time.Millisecond)
						}
						search(mem, qs[0]) // swaps the built index in
						b.ReportMetric(time.Since(t0).Seconds(), "build-s")
						mem.Close()
						mem = nil
					}
					reportFiles(b, idxDir)

					// Approximate, reopened from the saved indexes: once
					// alone for the open time, RSS and heap (which do not
					// depend on the pool), then once per pool measured, all
					// open together, searched in annRounds rounds taking
					// turns, so that a shared machine's bursts of load fall
					// on every pool alike.
					mem = open(0, efs[0])
					t0 = time.Now()
					search(mem, qs[0])
					b.ReportMetric(time.Since(t0).Seconds(), "ann-open-s")
					b.ReportMetric(rssMiB(), "ann-rss-MiB")
					annHeap := heapPer(&mem)
					b.ReportMetric(annHeap, "ann-heap-B/note")
					b.ReportMetric(annHeap/exactHeap, "ann/exact-heap")
					mems := make([]*memory.Memory, len(efs))
					for i, ef := range efs {
						mems[i] = open(0, ef)
						search(mems[i], qs[0])
					}
					approxAt := make([][][]amem.Result, len(efs))
					took := make([][]time.Duration, len(efs))
					cpu := make([][]time.Duration, len(efs))
					best := make([]float64, len(efs))
					for r := range annRounds {
						for i := range efs {
							w, c, res := timed(mems[i], r == annRounds-1 && i == len(efs)-1)
							if r == 0 {
								approxAt[i] = res
							}
							took[i] = append(took[i], w...)
							cpu[i] = append(cpu[i], c...)
							if p := msOf(c, 0.5); r == 0 || p < best[i] {
								best[i] = p
							}
						}
					}
					for i, ef := range efs {
						name := fmt.Sprintf("ef%d", ef)
						report(name, msOf(took[i], 0.5), msOf(took[i], 0.99), msOf(cpu[i], 0.5), msOf(cpu[i], 0.99))
						b.ReportMetric(best[i], name+"-cpu-best-p50-ms")
						// The phases, CPU per search, all rounds: the index
						// alone (graph walk and re-ranking) and the store's
						// read of the hits.
						if ph := phases[ef]; len(ph.of("amem.search.vectors")) > 0 {
							b.ReportMetric(msOf(ph.of("amem.search.vectors"), 0.5), name+"-index-cpu-p50-ms")
							b.ReportMetric(msOf(ph.of("amem.search.vectors"), 0.99), name+"-index-cpu-p99-ms")
							b.ReportMetric(msOf(ph.of("amem.search.read"), 0.5), name+"-read-cpu-p50-ms")
						}
						mems[i].Close()
					}

					var turn func(string) string
					if corpus.name == "dup" {
						turn = func(id string) string {
							var i int
							fmt.Sscanf(id, "01H%d", &i)
							return data.notes[i%len(data.notes)].Content
						}
					}
					for i, ef := range efs {
						recallOf(b, fmt.Sprintf("ef%d-", ef), exact, approxAt[i], turn)
					}
				}
			})
		}
	}
}

// recallOf reports recall@10 of approx against exact (see
// BenchmarkApproximate), each metric's name after prefix.
func recallOf(b *testing.B, prefix string, exact, approx [][]amem.Result, turn func(id string) string) {
	var strict, eps, turnHits, want int
	var gap float64
	for i := range exact {
		want += len(exact[i])
		if len(exact[i]) == 0 {
			continue
		}
		last := exact[i][len(exact[i])-1].Score
		ids, turns := map[string]bool{}, map[string]bool{}
		for _, r := range exact[i] {
			ids[r.Note.ID] = true
			if turn != nil {
				turns[turn(r.Note.ID)] = true
			}
		}
		for _, r := range approx[i] {
			if ids[r.Note.ID] {
				strict++
			}
			if r.Score >= last-1e-3 {
				eps++
			}
			if turn != nil && turns[turn(r.Note.ID)] {
				turnHits++
			}
		}
		if len(approx[i]) > 0 {
			gap += last - approx[i][len(approx[i])-1].Score
		}
	}
	b.ReportMetric(float64(strict)/float64(want), prefix+"recall@10")
	b.ReportMetric(float64(eps)/float64(want), prefix+"recall-eps@10")
	if turn != nil {
		b.ReportMetric(float64(turnHits)/float64(want), prefix+"turn-recall@10")
		b.ReportMetric(gap/float64(len(exact)), prefix+"gap-10th")
	}
}

// amemLexFile is the full-text index file of a one-namespace index
// directory, saved when a build has saved its graph.
func amemLexFile(dir string) string {
	m, _ := filepath.Glob(filepath.Join(dir, "[0-9a-f]*.lex"))
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

// annRounds is how many times BenchmarkApproximate runs its questions
// through each pool: pooled over rounds, one burst of load elsewhere on a
// shared machine moves a percentile less.
const annRounds = 5

// msOf is the q-quantile of ds in milliseconds (0 for none).
func msOf(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return ms(quantile(s, q))
}
