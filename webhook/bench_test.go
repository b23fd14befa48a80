package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/webhook"
)

// BenchmarkDelivery is the webhook worker's throughput on SQLite: events
// queued for one webhook whose receiver answers 200 at once, delivered
// by DeliverDue rounds of the default batch; events/s is the figure
// (the receiver costs next to nothing, so this is the worker and the
// store: claiming, sending, recording each round's outcomes). In
// "enriching", another connection to the file adds and enriches notes
// all the while, as a busy server does: SQLite has one writer.
func BenchmarkDelivery(b *testing.B) {
	b.Run("idle", func(b *testing.B) { benchDelivery(b, false) })
	b.Run("enriching", func(b *testing.B) { benchDelivery(b, true) })
}

func benchDelivery(b *testing.B, enriching bool) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "amem.db")
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if enriching {
		clk := &clock{t: time.Now()}
		m, _ := openMemory(b, path, clk)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := m.Add(ctx, amem.AddRequest{Namespace: "writes", Content: fmt.Sprint("note ", i, " about the garden and the budget")}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
		defer func() { close(stop); <-done; m.Close() }()
	}
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer rcv.Close()
	h, err := webhook.New("bench", webhook.Input{URL: rcv.URL + "/hook"}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := st.CreateWebhook(ctx, h); err != nil {
		b.Fatal(err)
	}
	targets, err := webhook.ParseTargets([]string{"127.0.0.1"})
	if err != nil {
		b.Fatal(err)
	}
	w, err := webhook.NewWorker(st, &webhook.Options{Targets: targets, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	const events = 500
	b.ResetTimer()
	var total time.Duration
	for n := range b.N {
		b.StopTimer()
		err := st.Update(ctx, func(tx amem.Tx) error {
			for i := range events {
				// A note each: a note's events go one after another.
				e := amem.Event{Namespace: "bench", NoteID: fmt.Sprint("N", n, "-", i), Version: 1, Kind: amem.EventCreated, At: time.Now()}
				if err := tx.(amem.EventRecorder).RecordEvent(e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		for sent := 0; sent < events; {
			r, err := w.DeliverDue(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if r.Claimed == 0 {
				b.Fatalf("%d of %d delivered, none due", sent, events)
			}
			sent += r.Delivered
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(events*b.N)/total.Seconds(), "events/s")
}
