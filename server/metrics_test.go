package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

// /metrics counts the approximate index a process builds and, after a
// restart over the same index directory, the saved vector and full-text
// indexes read instead of built.
func TestIndexMetrics(t *testing.T) {
	ctx := context.Background()
	path, dir := filepath.Join(t.TempDir(), "i.db"), t.TempDir()
	open := func() *memory.Memory {
		st, err := sqlite.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Logger: slog.New(slog.DiscardHandler),
			Indexes: kernel.Options{ApproximateFrom: 20, IndexDir: dir}})
		if err != nil {
			t.Fatal(err)
		}
		return mem
	}
	search := func(mem *memory.Memory) {
		if _, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "note 3", K: 3, LinksPerHit: -1}); err != nil {
			t.Fatal(err)
		}
	}
	scrape := func(mem *memory.Memory, want ...string) {
		t.Helper()
		rec := httptest.NewRecorder()
		newMetrics(mem, nil, nil).handler.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		for _, w := range want {
			if !strings.Contains(rec.Body.String(), w+"\n") {
				t.Errorf("/metrics lacks %s", w)
			}
		}
	}

	mem := open()
	var reqs []amem.AddRequest
	for i := range 30 {
		reqs = append(reqs, amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("note %d", i)})
	}
	if _, err := mem.AddBatch(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		search(mem)
		ann, _ := filepath.Glob(filepath.Join(dir, "*.hnsw"))
		lex, _ := filepath.Glob(filepath.Join(dir, "*.lex"))
		return len(ann) == 1 && len(lex) == 1
	})
	scrape(mem, `amem_index_builds_total 1`, `amem_index_loads_total{kind="vector"} 0`, `amem_index_loads_total{kind="fulltext"} 0`)
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}

	mem = open()
	defer mem.Close()
	search(mem)
	scrape(mem, `amem_index_builds_total 0`, `amem_index_loads_total{kind="vector"} 1`, `amem_index_loads_total{kind="fulltext"} 1`)
}
