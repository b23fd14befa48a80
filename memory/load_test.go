package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/sqlite"
)

// A load hands the rows it reads to another goroutine in batches: every
// kind of row is indexed across the batches' edges, and a row the
// indexer refuses stops the load with an error naming the note, leaving
// nothing half loaded for the next search.
func TestLoadIndexesEveryRow(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "load.db")
	emb := lexical.New(nil)
	const n = 1000 // several batches
	put := func(bad int) {
		t.Helper()
		st, err := sqlite.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		err = st.Update(ctx, func(tx amem.Tx) error {
			if err := tx.PutNamespace(amem.NamespaceInfo{Name: "ns", Embedder: emb.Name(), Dimensions: emb.Dimensions(), CreatedAt: t0}); err != nil {
				return err
			}
			for i := range n {
				text := fmt.Sprintf("row%d plain words", i)
				if i%7 == 0 {
					text = fmt.Sprintf("row%d unembedded words", i)
				}
				vecs, _ := emb.Embed(ctx, []string{text})
				note := amem.Note{ID: fmt.Sprintf("01J%023d", i), Namespace: "ns", Content: text, EventTime: t0, IngestTime: t0, UpdatedAt: t0,
					Keywords: []string{}, Tags: []string{}, Embedding: vecs[0], Version: 1, Enrichment: amem.Enrichment{State: amem.EnrichDone}}
				switch {
				case i%7 == 0:
					note.Embedding = nil
				case i == bad:
					note.Embedding = note.Embedding[:3]
				}
				if err := tx.InsertNote(note); err != nil {
					return err
				}
			}
			for i := 3; i < n; i += 11 {
				if err := tx.DeleteNote("ns", fmt.Sprintf("01J%023d", i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	put(-1)
	mem := openAt(t, path, nil)
	defer mem.Close()
	for _, i := range []int{0, 127, 128, 129, 500, 998, 999} {
		q := fmt.Sprintf("row%d", i)
		res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: q, K: 1, Mode: amem.SearchLexical, LinksPerHit: -1})
		if err != nil {
			t.Fatal(err)
		}
		deleted := i >= 3 && (i-3)%11 == 0
		if deleted != (len(res) == 0) || !deleted && !strings.HasPrefix(res[0].Note.Content, q+" ") {
			t.Errorf("full text, %s (deleted %v): %v", q, deleted, res)
		}
		res, err = mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: q + " plain words", K: 1, Mode: amem.SearchVector, LinksPerHit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if want := !deleted && i%7 != 0; want != (len(res) > 0 && strings.HasPrefix(res[0].Note.Content, q+" ")) {
			t.Errorf("vectors, %s (deleted %v, embedded %v): %v", q, deleted, i%7 != 0, res)
		}
	}
	mem.Close()

	path = filepath.Join(t.TempDir(), "bad.db")
	put(600)
	mem = openAt(t, path, nil)
	defer mem.Close()
	for range 2 {
		_, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "row5", Mode: amem.SearchLexical})
		if want := fmt.Sprintf("note 01J%023d: index: vector has 3 dimensions", 600); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("search over a store holding a 3-dimension vector: %v, want an error with %q", err, want)
		}
	}
}
