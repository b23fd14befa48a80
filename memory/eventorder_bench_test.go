package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

// BenchmarkBrowseByEventTime reads page 1 and a deep page (the notes
// after the 15,000th) of a 20,000-note namespace, newest first by event
// time (the web UI's default list), 100 notes a page: through the
// store's keyset pages (amem.EventTimePager) and through the scan of
// every note that a store without them falls back to, in the same run.
func BenchmarkBrowseByEventTime(b *testing.B) {
	const n, deep, limit = 20_000, 15_000, 100
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "amem.db")
	fill(b, path, n)
	open := func(wrap func(amem.Store) amem.Store) *memory.Memory {
		s, err := sqlite.Open(ctx, path, nil)
		if err != nil {
			b.Fatal(err)
		}
		mem, err := memory.Open(ctx, wrap(s), &memory.Options{Embedder: lexical.New(nil), Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { mem.Close() })
		return mem
	}
	pager := open(func(s amem.Store) amem.Store { return s })
	scan := open(func(s amem.Store) amem.Store { return requiredOnly{s} })
	// The deep page's key: the 15,000th note newest first, walked once.
	after := ""
	for read := 0; read < deep; read += 1000 {
		page, err := pager.Browse(ctx, "bench", amem.BrowseQuery{After: after, Limit: 1000, Newest: true, ByEventTime: true})
		if err != nil || len(page) != 1000 {
			b.Fatalf("walk: %d notes, %v", len(page), err)
		}
		after = page[len(page)-1].ID
	}
	for _, path := range []struct {
		name string
		mem  *memory.Memory
	}{{"pager", pager}, {"scan", scan}} {
		for _, page := range []struct{ name, after string }{{"first", ""}, {"deep", after}} {
			b.Run(path.name+"/"+page.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					notes, err := path.mem.Browse(ctx, "bench", amem.BrowseQuery{After: page.after, Limit: limit, Newest: true, ByEventTime: true})
					if err != nil || len(notes) != limit {
						b.Fatalf("%d notes, %v", len(notes), err)
					}
				}
			})
		}
	}
}
