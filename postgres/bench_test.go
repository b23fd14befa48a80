package postgres_test

// Benchmarks of a Memory over PostgreSQL, with SQLite as the reference in
// the same run (issue 13). They live here because this package's
// TestMain already provides the test database (pgtest.Main); plain
// `go test` runs none of them.
//
//	go test ./postgres -run '^$' -bench . -benchtime 200x

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/benchtext"
	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/postgres"
	"github.com/amem-dev/amem/sqlite"
)

var benchSentence = benchtext.Sentence

const benchQuery = "piano concert with family"

// openPG opens a store on a fresh schema of the run's database.
func openPG(b *testing.B) amem.Store {
	b.Helper()
	return openPG0(b, pgtest.URL(b))
}

func openSQLite(b *testing.B, path string) amem.Store {
	b.Helper()
	st, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// benchMemory is a Memory with the lexical embedder and no curator, so
// that what Add and Search spend beyond the store is small and the same
// for both stores.
func benchMemory(b *testing.B, st amem.Store) *memory.Memory {
	b.Helper()
	mem, err := memory.Open(context.Background(), st, &memory.Options{Embedder: lexical.New(nil)})
	if err != nil {
		b.Fatal(err)
	}
	return mem
}

// fillStore stores n notes in namespace ns straight through the store,
// 5000 to a transaction, so that setup takes seconds, not minutes. The
// same seed gives both stores the same notes.
func fillStore(b *testing.B, st amem.Store, ns string, n int) {
	b.Helper()
	ctx := context.Background()
	emb := lexical.New(nil)
	r := rand.New(rand.NewPCG(2, 2))
	t0 := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	const batch = 5000
	for lo := 0; lo < n; lo += batch {
		texts := make([]string, min(n, lo+batch)-lo)
		for i := range texts {
			texts[i] = benchSentence(r)
		}
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			b.Fatal(err)
		}
		err = st.Update(ctx, func(tx amem.Tx) error {
			if lo == 0 {
				if err := tx.PutNamespace(amem.NamespaceInfo{Name: ns, Embedder: emb.Name(), Dimensions: emb.Dimensions(), CreatedAt: t0}); err != nil {
					return err
				}
			}
			for i, text := range texts {
				ts := t0.Add(time.Duration(lo+i) * time.Minute)
				nt := amem.Note{ID: fmt.Sprintf("01H%023d", lo+i), Namespace: ns, Content: text,
					EventTime: ts, IngestTime: ts, UpdatedAt: ts,
					Keywords: []string{}, Tags: []string{}, Embedding: vecs[i], Version: 1,
					Enrichment: amem.Enrichment{State: amem.EnrichDone}}
				if err := tx.InsertNote(nt); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkStores times Memory.Add and Memory.Search (vector and hybrid,
// k=10) over 10k notes on PostgreSQL and on SQLite, the two stores taking
// turns op by op (which goes first alternating) so that both see the same
// machine: p50 and p99 of each and PostgreSQL's p50 over SQLite's. The
// indexes are loaded before timing (one search each); Add runs last, so
// the searches see exactly 10k notes.
func BenchmarkStores(b *testing.B) {
	ctx := context.Background()
	const n = 10_000
	pg, lite := openPG(b), openSQLite(b, filepath.Join(b.TempDir(), "bench.db"))
	fillStore(b, pg, "bench", n)
	fillStore(b, lite, "bench", n)
	mems := [2]*memory.Memory{benchMemory(b, pg), benchMemory(b, lite)}
	defer mems[0].Close()
	defer mems[1].Close()
	for _, m := range mems {
		if _, err := m.Search(ctx, amem.SearchRequest{Namespace: "bench", Query: benchQuery, K: 10}); err != nil {
			b.Fatal(err)
		}
	}

	run := func(b *testing.B, op func(m *memory.Memory, r *rand.Rand) error) {
		var times [2][]time.Duration
		rs := [2]*rand.Rand{rand.New(rand.NewPCG(5, 5)), rand.New(rand.NewPCG(5, 5))}
		i := 0
		for b.Loop() {
			for k := range 2 {
				s := (i + k) % 2 // alternate which store goes first
				t0 := time.Now()
				if err := op(mems[s], rs[s]); err != nil {
					b.Fatal(err)
				}
				times[s] = append(times[s], time.Since(t0))
			}
			i++
		}
		pg50, lite50 := percentile(times[0], 0.5), percentile(times[1], 0.5)
		b.ReportMetric(ms(pg50), "pg-p50-ms")
		b.ReportMetric(ms(percentile(times[0], 0.99)), "pg-p99-ms")
		b.ReportMetric(ms(lite50), "sqlite-p50-ms")
		b.ReportMetric(ms(percentile(times[1], 0.99)), "sqlite-p99-ms")
		b.ReportMetric(float64(pg50)/float64(lite50), "pg/sqlite-p50")
	}
	queries := make([]string, 64)
	qr := rand.New(rand.NewPCG(7, 7))
	for i := range queries {
		queries[i] = strings.Join(strings.Fields(benchSentence(qr))[:4], " ")
	}
	for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchHybrid} {
		b.Run(fmt.Sprintf("Search/%s/%d", mode, n), func(b *testing.B) {
			run(b, func(m *memory.Memory, r *rand.Rand) error {
				_, err := m.Search(ctx, amem.SearchRequest{Namespace: "bench", Query: queries[r.IntN(len(queries))], K: 10, Mode: mode})
				return err
			})
		})
	}
	b.Run(fmt.Sprintf("Add/%d", n), func(b *testing.B) {
		run(b, func(m *memory.Memory, r *rand.Rand) error {
			_, err := m.Add(ctx, amem.AddRequest{Namespace: "bench", Content: benchSentence(r)})
			return err
		})
	})
}

// writeFor runs writers goroutines per Memory, each adding notes to
// namespace ns until d has passed, and returns how many notes they added.
func writeFor(b *testing.B, mems []*memory.Memory, writers int, ns string, d time.Duration) int64 {
	ctx := context.Background()
	var added atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	deadline := time.Now().Add(d)
	for mi, m := range mems {
		for w := range writers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(mi), uint64(w)))
				for time.Now().Before(deadline) {
					if _, err := m.Add(ctx, amem.AddRequest{Namespace: ns, Content: benchSentence(r)}); err != nil {
						failed.Store(err)
						return
					}
					added.Add(1)
				}
			})
		}
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	return added.Load()
}

// BenchmarkFleetWrites compares the write throughput of three Memories on
// one PostgreSQL database, each over its own postgres.Store (its own pool
// of the default 10 connections, as three processes would have), four
// writers each, with one Memory and twelve writers: notes/s of each, the
// two taking turns for a second at a time. All write one namespace.
// -benchtime Nx gives N rounds.
func BenchmarkFleetWrites(b *testing.B) {
	const (
		instances = 3
		writers   = 4
		round     = time.Second
	)
	url := pgtest.URL(b)
	open := func() *memory.Memory {
		st, err := postgres.Open(context.Background(), url, nil)
		if err != nil {
			b.Fatal(err)
		}
		return benchMemory(b, st)
	}
	one := []*memory.Memory{open()}
	var three []*memory.Memory
	for range instances {
		three = append(three, open())
	}
	defer func() {
		for _, m := range append(one, three...) {
			m.Close()
		}
	}()
	writeFor(b, one, 1, "fleet", 200*time.Millisecond) // creates the namespace, warms the pools
	writeFor(b, three, 1, "fleet", 200*time.Millisecond)

	var nOne, nThree int64
	var tOne, tThree time.Duration
	for b.Loop() {
		t0 := time.Now()
		nOne += writeFor(b, one, instances*writers, "fleet", round)
		tOne += time.Since(t0)
		t0 = time.Now()
		nThree += writeFor(b, three, writers, "fleet", round)
		tThree += time.Since(t0)
	}
	one1 := float64(nOne) / tOne.Seconds()
	three1 := float64(nThree) / tThree.Seconds()
	b.ReportMetric(one1, "one-notes/s")
	b.ReportMetric(three1, "three-notes/s")
	b.ReportMetric(three1/one1, "three/one")
}

// heapAlloc is the live heap after a full collection.
func heapAlloc() uint64 {
	runtime.GC()
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	return st.HeapAlloc
}

// BenchmarkInstanceMemory measures what one Memory holds for a
// 100k-note namespace: the live heap its indexes keep after its first
// hybrid search (GC before and after, per note), and the time of that
// first search, which loads the indexes from the store, on PostgreSQL and
// on SQLite in turn. Each iteration opens fresh Memories (and stores).
func BenchmarkInstanceMemory(b *testing.B) {
	ctx := context.Background()
	const n = 100_000
	url := pgtest.URL(b)
	path := filepath.Join(b.TempDir(), "bench.db")
	pg := openPG0(b, url)
	fillStore(b, pg, "bench", n)
	pg.Close()
	lite := openSQLite(b, path)
	fillStore(b, lite, "bench", n)
	lite.Close()

	req := amem.SearchRequest{Namespace: "bench", Query: benchQuery, K: 10, Mode: amem.SearchHybrid}
	var first [2]time.Duration
	var held [2]float64
	for b.Loop() {
		stores := [2]func() amem.Store{func() amem.Store { return openPG0(b, url) }, func() amem.Store { return openSQLite(b, path) }}
		for s, open := range stores {
			mem := benchMemory(b, open())
			before := heapAlloc()
			t0 := time.Now()
			if _, err := mem.Search(ctx, req); err != nil {
				b.Fatal(err)
			}
			first[s] += time.Since(t0)
			after := heapAlloc()
			runtime.KeepAlive(mem)
			held[s] += float64(int64(after)-int64(before)) / n
			mem.Close()
		}
	}
	iters := float64(b.N)
	b.ReportMetric(ms(first[0])/iters, "pg-first-ms")
	b.ReportMetric(ms(first[1])/iters, "sqlite-first-ms")
	b.ReportMetric(float64(first[0])/float64(first[1]), "pg/sqlite-first")
	b.ReportMetric(held[0]/iters, "pg-heap-B/note")
	b.ReportMetric(held[1]/iters, "sqlite-heap-B/note")
	b.ReportMetric(held[0]/iters*n/(1<<20), "pg-heap-MiB")
}

// openPG0 opens a store on url (a schema pgtest.URL made).
func openPG0(b *testing.B, url string) amem.Store {
	b.Helper()
	st, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		b.Fatal(err)
	}
	return st
}
