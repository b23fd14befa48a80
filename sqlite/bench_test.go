package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/webhook"
)

var benchWords = strings.Fields(`memory agent note link graph evolve context keyword tag retrieval
vector embedding durable crash power write log checkpoint reader writer transaction commit alice bob
carol meeting paris london coffee project deadline budget review design music movie book travel
dinner family friend weather sport garden cooking recipe health doctor river mountain`)

func benchNote(r *rand.Rand, ns, id string, dims int) amem.Note {
	words := make([]string, 30)
	for i := range words {
		words[i] = benchWords[r.IntN(len(benchWords))]
	}
	n := testNote(ns, id, strings.Join(words, " "))
	n.Keywords = words[:5]
	n.Tags = words[5:7]
	n.Context = strings.Join(words[7:15], " ")
	n.Embedding = make([]float32, dims)
	for i := range n.Embedding {
		n.Embedding[i] = r.Float32()
	}
	return n
}

// fill stores n notes in one transaction and returns their IDs.
func fill(b *testing.B, s *sqlite.Store, n int) []string {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	id := ids(n)
	if err := s.Update(context.Background(), func(tx amem.Tx) error {
		for _, id := range id {
			if err := tx.InsertNote(benchNote(r, "bench", id, 384)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return id
}

// BenchmarkInsertNote inserts one note (384 dimensions) per transaction,
// each synced to disk.
func BenchmarkInsertNote(b *testing.B) {
	s := mustOpen(b, tempPath(b), nil)
	r := rand.New(rand.NewPCG(1, 2))
	id := ids(b.N)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		n := benchNote(r, "bench", id[i], 384)
		if err := s.Update(ctx, func(tx amem.Tx) error { return tx.InsertNote(n) }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsertBatch inserts notes 1000 to a transaction; ns/op is per
// note.
func BenchmarkInsertBatch(b *testing.B) {
	s := mustOpen(b, tempPath(b), nil)
	r := rand.New(rand.NewPCG(1, 2))
	id := ids(b.N)
	notes := make([]amem.Note, b.N)
	for i := range notes {
		notes[i] = benchNote(r, "bench", id[i], 384)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for start := 0; start < b.N; start += 1000 {
		batch := notes[start:min(start+1000, b.N)]
		if err := s.Update(ctx, func(tx amem.Tx) error {
			for _, n := range batch {
				if err := tx.InsertNote(n); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetNote reads one note, with its embedding and links, per View.
func BenchmarkGetNote(b *testing.B) {
	for _, size := range []int{1000, 10000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			s := mustOpen(b, tempPath(b), nil)
			id := fill(b, s, size)
			ctx := context.Background()
			r := rand.New(rand.NewPCG(3, 4))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := s.View(ctx, func(tx amem.Tx) error {
					_, err := tx.Note("bench", id[r.IntN(len(id))])
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGetNoteParallel reads notes from 4*GOMAXPROCS goroutines
// through read pools of several sizes.
func BenchmarkGetNoteParallel(b *testing.B) {
	for _, conns := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprint("conns=", conns), func(b *testing.B) {
			s := mustOpen(b, tempPath(b), &sqlite.Options{ReadConns: conns})
			id := fill(b, s, 1000)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				r := rand.New(rand.NewPCG(rand.Uint64(), 4))
				for pb.Next() {
					if err := s.View(ctx, func(tx amem.Tx) error {
						_, err := tx.Note("bench", id[r.IntN(len(id))])
						return err
					}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkEmbeddingsOf streams the vectors of 1,024 notes of a
// namespace of 10,000, as an approximate index's re-ranking reads its
// candidates without a float file.
func BenchmarkEmbeddingsOf(b *testing.B) {
	s := mustOpen(b, tempPath(b), nil)
	fill(b, s, 10000)
	ctx := context.Background()
	var ids []string
	if err := s.View(ctx, func(tx amem.Tx) error {
		all, err := tx.MatchIDs("bench", amem.Filter{})
		ids = all[:min(1024, len(all))]
		return err
	}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := s.View(ctx, func(tx amem.Tx) error {
			return tx.EmbeddingsOf("bench", ids, func(string, []float32) error { return nil })
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordEvent is what every note write pays for webhooks:
// RecordEvent inside a transaction (the commit, shared with the write,
// left out), for a namespace with no webhook (every write without the
// feature) and with one (an outbox row written).
func BenchmarkRecordEvent(b *testing.B) {
	for _, hooks := range []int{0, 1} {
		b.Run(fmt.Sprintf("webhooks=%d", hooks), func(b *testing.B) {
			s := mustOpen(b, tempPath(b), nil)
			ctx := context.Background()
			if hooks > 0 {
				h, err := webhook.New("bench", webhook.Input{URL: "http://127.0.0.1:9/"}, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				if err := s.CreateWebhook(ctx, h); err != nil {
					b.Fatal(err)
				}
			}
			e := amem.Event{Namespace: "bench", NoteID: "01JAAAAAAAAAAAAAAAAAAAAAAA", Version: 1, Kind: amem.EventCreated, At: time.Now()}
			b.ReportAllocs()
			if err := s.Update(ctx, func(tx amem.Tx) error {
				for b.Loop() {
					if err := tx.(amem.EventRecorder).RecordEvent(e); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		})
	}
}
