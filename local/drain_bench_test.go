package local

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/memory"
)

// BenchmarkDrain measures background enrichment against the same
// enrichments run back to back in one goroutine, on the offline default,
// in the same run: n pending notes are stored, then drained either by
// EnrichPending (back to back) or by RunWorkers (the default two workers,
// claiming due notes from the store). It reports both rates and their
// ratio, bg/seq; issue 11 asks for at least 0.7.
func BenchmarkDrain(b *testing.B) {
	needModel(b)
	const n = 150
	var seq, bg time.Duration
	for i := 0; b.Loop(); i++ {
		seq += drain(b, n, false)
		bg += drain(b, n, true)
	}
	b.ReportMetric(float64(n*b.N)/seq.Seconds(), "seq-notes/s")
	b.ReportMetric(float64(n*b.N)/bg.Seconds(), "bg-notes/s")
	b.ReportMetric(seq.Seconds()/bg.Seconds(), "bg/seq")
	b.ReportMetric(0, "ns/op") // the rates are the result
}

// drain stores n pending notes in a fresh memory, then times their
// enrichment by the workers or back to back.
func drain(b *testing.B, n int, workers bool) time.Duration {
	b.Helper()
	ctx := context.Background()
	var done atomic.Int64
	finished := make(chan struct{})
	mem, err := Open(ctx, Config{Path: filepath.Join(b.TempDir(), "d.db"), Options: memory.Options{Enrich: enrich.Options{
		Async: true,
		OnEnrich: func(amem.Note, error) {
			if done.Add(1) == int64(n) {
				close(finished)
			}
		},
	}}})
	if err != nil {
		b.Fatal(err)
	}
	defer mem.Close()
	reqs := make([]amem.AddRequest, n)
	for i := range reqs {
		reqs[i] = amem.AddRequest{Namespace: "drain", Content: benchTurn(i)}
	}
	if _, err := mem.AddBatch(ctx, reqs); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if !workers {
		if ok, failed, err := mem.EnrichPending(ctx, "drain", 0); err != nil || ok != n {
			b.Fatalf("enriched %d, %d failed: %v", ok, failed, err)
		}
		return time.Since(start)
	}
	wctx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- mem.RunWorkers(wctx, memory.WorkerOptions{}) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Minute):
		b.Fatalf("workers drained %d of %d notes in 5 minutes", done.Load(), n)
	}
	d := time.Since(start)
	stop()
	<-errc
	return d
}
