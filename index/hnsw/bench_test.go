package hnsw

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem/index"
	"github.com/amem-dev/amem/internal/hugepage"
)

// benchSet is a corpus loaded into both indexes once per size and kept
// for every benchmark of that size, with the exact top 10 of its queries.
type benchSet struct {
	pair
	c                   *corpus
	queries             [][]float32
	truth               [][]index.Hit
	build, load         time.Duration // approximate index, all cores
	annBytes, flatBytes float64       // heap per vector
}

var (
	benchMu   sync.Mutex
	benchSets = map[int]*benchSet{}
)

const benchQueries = 200

func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + uint64(hugepage.Settled()) // index.Flat's mapped block too
}

func loadBench(b *testing.B, n int) *benchSet {
	benchMu.Lock()
	defer benchMu.Unlock()
	if s := benchSets[n]; s != nil {
		return s
	}
	// Free the previous size first: two million-vector sets would not fit.
	clear(benchSets)
	const dim, batch = 512, 50000
	c := newCorpus(dim, 11)
	s := &benchSet{c: c}

	// The approximate index, built and measured alone. Vectors come in
	// batches and are dropped, as they would from the store. With
	// AMEM_HNSW_CACHE set to a folder, a graph built once is saved there
	// and later runs load it instead (reporting the load, not the build).
	h0 := heapNow()
	cache := ""
	if dir := os.Getenv("AMEM_HNSW_CACHE"); dir != "" {
		cache = filepath.Join(dir, fmt.Sprintf("bench-%d-v%d.hnsw", n, version))
	}
	var ann *Index
	if f, err := os.Open(cache); err == nil {
		start := time.Now()
		ann, err = Read(bufio.NewReaderSize(f, 1<<22), nil)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		s.load = time.Since(start)
	} else {
		ann, _ = New(dim, nil)
		ann.Grow(n)
		for lo := 0; lo < n; lo += batch {
			hi := min(lo+batch, n)
			vs := c.vectors(lo, hi)
			ids := make([]string, hi-lo)
			for i := range ids {
				ids[i] = idOf(lo + i)
			}
			start := time.Now()
			if err := ann.UpsertBatch(ids, vs); err != nil {
				b.Fatal(err)
			}
			s.build += time.Since(start)
		}
	}
	h1 := heapNow()
	s.annBytes = float64(h1-h0) / float64(n)
	if s.build > 0 {
		// Save it (to the cache, or a scratch file) and time loading it
		// back, so that build and load are measured in the same run.
		path := cache
		if path == "" {
			path = filepath.Join(b.TempDir(), "index.hnsw")
		}
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ann.WriteTo(f); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		if f, err = os.Open(path); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := Read(f, nil); err != nil {
			b.Fatal(err)
		}
		s.load = time.Since(start)
		f.Close()
		if cache == "" {
			os.Remove(path)
		}
	}

	exact := index.NewFlat(dim)
	exact.Grow(n)
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		for i, v := range c.vectors(lo, hi) {
			exact.Upsert(idOf(lo+i), v)
		}
	}
	s.flatBytes = float64(heapNow()-h1) / float64(n)
	s.pair = pair{ann, exact}

	for j := range benchQueries {
		q := c.query(uint64(j))
		s.queries = append(s.queries, q)
		t, _ := exact.Search(q, 10, nil)
		s.truth = append(s.truth, t)
	}
	benchSets[n] = s
	return s
}

func recallOf(got, want []index.Hit) float64 {
	n := 0
	for _, w := range want {
		if slices.ContainsFunc(got, func(h index.Hit) bool { return h.ID == w.ID }) {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

var benchSizes = []int{10000, 25000, 50000, 100000, 200000, 1000000}

// BenchmarkSearch times top-10 searches on one core (GOMAXPROCS=1), one
// query at a time, and reports the median latency and recall@10 against
// exact search; flat is index.Flat on the same vectors and core.
func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := loadBench(b, n)
			b.Run("flat", func(b *testing.B) {
				benchOne(b, s, func(q []float32) []index.Hit {
					h, _ := s.exact.Search(q, 10, nil)
					return h
				})
			})
			for _, ef := range []int{32, 64, 128} {
				for _, rr := range []bool{false, true} {
					b.Run(fmt.Sprintf("ef=%d/rerank=%v", ef, rr), func(b *testing.B) {
						s.ann.SetEfSearch(ef)
						var r Rerank
						if rr {
							r = s.rerank
						}
						benchOne(b, s, func(q []float32) []index.Hit {
							h, _ := s.ann.Search(q, 10, nil, r)
							return h
						})
					})
				}
			}
		})
	}
}

func benchOne(b *testing.B, s *benchSet, search func([]float32) []index.Hit) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.ReportAllocs()
	var lat []time.Duration
	var rec float64
	i := 0
	for b.Loop() {
		j := i % len(s.queries)
		t := time.Now()
		h := search(s.queries[j])
		lat = append(lat, time.Since(t))
		rec += recallOf(h, s.truth[j])
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(rec/float64(i), "recall@10")
}

// BenchmarkBuild reports the load of each size (all cores, UpsertBatch)
// and the heap per vector of both indexes, measured in the same run.
func BenchmarkBuild(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := loadBench(b, n)
			for b.Loop() {
			}
			if s.build > 0 {
				b.ReportMetric(s.build.Seconds(), "build-s")
			}
			if s.load > 0 {
				b.ReportMetric(s.load.Seconds(), "load-s")
			}
			b.ReportMetric(s.annBytes, "ann-B/vec")
			b.ReportMetric(s.flatBytes, "flat-B/vec")
		})
	}
}

// BenchmarkFiltered compares, at 100k vectors on one core with
// re-ranking, a filtered graph search with SearchAmong over the matching
// ids, as the share of allowed notes falls: the measured basis of the
// rule in the package doc for when a caller should switch.
func BenchmarkFiltered(b *testing.B) {
	s := loadBench(b, 100000)
	s.ann.SetEfSearch(64)
	n := s.exact.Len()
	for _, every := range []int{2, 10, 30, 100, 300} {
		allowed := make(map[string]bool, n/every)
		var ids []string
		for i := 0; i < n; i += every {
			allowed[idOf(i)] = true
			ids = append(ids, idOf(i))
		}
		allow := func(id string) bool { return allowed[id] }
		truth := make([][]index.Hit, len(s.queries))
		for j, q := range s.queries {
			truth[j], _ = s.exact.Search(q, 10, allow)
		}
		fs := *s
		fs.truth = truth
		b.Run(fmt.Sprintf("1in%d/search", every), func(b *testing.B) {
			benchOne(b, &fs, func(q []float32) []index.Hit {
				h, _ := s.ann.Search(q, 10, allow, s.rerank)
				return h
			})
		})
		b.Run(fmt.Sprintf("1in%d/among", every), func(b *testing.B) {
			benchOne(b, &fs, func(q []float32) []index.Hit {
				h, _ := s.ann.SearchAmong(q, 10, ids, s.rerank)
				return h
			})
		})
	}
}
