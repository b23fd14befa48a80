package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/benchtext"
	"github.com/amem-dev/amem/internal/hugepage"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/sqlite"
)

var benchSentence = benchtext.Sentence

// BenchmarkAdd measures the write path with the lexical embedder and no
// curator: validation, embedding, one durable transaction, index update.
func BenchmarkAdd(b *testing.B) {
	ctx := context.Background()
	mem := openMem(b, nil)
	r := rand.New(rand.NewPCG(1, 1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "bench", Content: benchSentence(r)}); err != nil {
			b.Fatal(err)
		}
	}
}

// fill stores n notes in namespace bench in one transaction, straight
// through the store, so that large benchmarks don't spend minutes in
// setup.
func fill(b *testing.B, path string, n int) { fillNS(b, path, "bench", n) }

func fillNS(b *testing.B, path, ns string, n int) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	emb := lexical.New(nil)
	r := rand.New(rand.NewPCG(2, 2))
	texts := make([]string, n)
	for i := range texts {
		texts[i] = benchSentence(r)
	}
	vecs, _ := emb.Embed(ctx, texts)
	t0 := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	err = st.Update(ctx, func(tx amem.Tx) error {
		if err := tx.PutNamespace(amem.NamespaceInfo{Name: ns, Embedder: emb.Name(), Dimensions: emb.Dimensions(), CreatedAt: t0}); err != nil {
			return err
		}
		for i, text := range texts {
			ts := t0.Add(time.Duration(i) * time.Minute)
			id := fmt.Sprintf("01H%03d%020d", len(ns), i) // apart in each namespace the benchmarks use
			n := amem.Note{ID: id, Namespace: ns, Content: text, EventTime: ts, IngestTime: ts, UpdatedAt: ts,
				Keywords: []string{}, Tags: []string{}, Embedding: vecs[i], Version: 1,
				Enrichment: amem.Enrichment{State: amem.EnrichDone}}
			if err := tx.InsertNote(n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchHybrid} {
			b.Run(fmt.Sprintf("%s/%d", mode, n), func(b *testing.B) {
				ctx := context.Background()
				path := filepath.Join(b.TempDir(), "bench.db")
				fill(b, path, n)
				mem := openAt(b, path, nil)
				defer mem.Close()
				req := amem.SearchRequest{Namespace: "bench", Query: "piano concert with family", K: 10, Mode: mode}
				if _, err := mem.Search(ctx, req); err != nil { // loads the index
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if _, err := mem.Search(ctx, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFirstSearch is a process's first hybrid search of a
// namespace: loading its vector and full-text indexes from the store, then
// one search. The reference, timed in the same run, is reading every
// note's vector and text out of the store once (Tx.Changes, as the load
// does) without indexing them (issue 12 asks for at most 1.5x). peak/heap
// is the highest live heap seen during the load (sampled every
// millisecond) over the heap the loaded indexes keep, both above the heap
// before it (issue 12: no spike above 1.5x).
func BenchmarkFirstSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "bench.db")
			fill(b, path, n)
			req := amem.SearchRequest{Namespace: "bench", Query: "piano concert with family", K: 10, Mode: amem.SearchHybrid}
			var read, first time.Duration
			var peak, kept uint64
			for b.Loop() {
				st, err := sqlite.Open(ctx, path, nil)
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				err = st.View(ctx, func(tx amem.Tx) error {
					return tx.Changes("bench", 0, func(amem.Change) error { return nil })
				})
				read += time.Since(t0)
				st.Close()
				if err != nil {
					b.Fatal(err)
				}
				mem := openAt(b, path, nil)
				runtime.GC()
				hugepage.Settled()
				before := liveHeap()
				stop, high := sampleHeap()
				t0 = time.Now()
				if _, err := mem.Search(ctx, req); err != nil {
					b.Fatal(err)
				}
				first += time.Since(t0)
				stop()
				peak += *high - before
				runtime.GC()
				hugepage.Settled()
				kept += liveHeap() - before
				runtime.KeepAlive(mem)
				mem.Close()
			}
			b.ReportMetric(float64(read.Milliseconds())/float64(b.N), "read-ms")
			b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "first-search-ms")
			b.ReportMetric(first.Seconds()/read.Seconds(), "first/read")
			b.ReportMetric(float64(kept)/float64(b.N)/float64(n), "heap-B/note")
			b.ReportMetric(float64(peak)/float64(kept), "peak/heap")
		})
	}
}

// liveHeap is the bytes of heap objects, live or not yet swept, and of
// the blocks mapped outside the heap for vectors (index.Flat's).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + uint64(hugepage.Mapped())
}

// sampleHeap records the highest liveHeap every millisecond until stop
// returns.
func sampleHeap() (stop func(), high *uint64) {
	high = new(uint64)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			*high = max(*high, liveHeap())
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(quit); <-done; *high = max(*high, liveHeap()) }, high
}

// BenchmarkTenantIsolation times hybrid searches of a 500-note namespace
// alone in its store, and beside a 60k-note namespace whose indexes the
// same process holds, taking turns (issue 12 asks for at most 1.2x).
func BenchmarkTenantIsolation(b *testing.B) {
	ctx := context.Background()
	alone := filepath.Join(b.TempDir(), "alone.db")
	fill(b, alone, 500)
	beside := filepath.Join(b.TempDir(), "beside.db")
	fillNS(b, beside, "big", 60_000)
	fill(b, beside, 500)
	req := amem.SearchRequest{Namespace: "bench", Query: "piano concert with family", K: 10, Mode: amem.SearchHybrid}
	a, bs := openAt(b, alone, nil), openAt(b, beside, nil)
	defer a.Close()
	defer bs.Close()
	big := req
	big.Namespace = "big"
	for _, s := range []struct {
		mem *memory.Memory
		req amem.SearchRequest
	}{{a, req}, {bs, req}, {bs, big}} {
		if _, err := s.mem.Search(ctx, s.req); err != nil { // loads the indexes
			b.Fatal(err)
		}
	}
	var ta, tb time.Duration
	r := rand.New(rand.NewPCG(5, 5))
	for b.Loop() {
		req.Query = benchSentence(r)[:40]
		t0 := time.Now()
		if _, err := a.Search(ctx, req); err != nil {
			b.Fatal(err)
		}
		ta += time.Since(t0)
		t0 = time.Now()
		if _, err := bs.Search(ctx, req); err != nil {
			b.Fatal(err)
		}
		tb += time.Since(t0)
	}
	b.ReportMetric(float64(ta.Microseconds())/float64(b.N), "alone-µs")
	b.ReportMetric(float64(tb.Microseconds())/float64(b.N), "beside-60k-µs")
	b.ReportMetric(tb.Seconds()/ta.Seconds(), "beside/alone")
}
