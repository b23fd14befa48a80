package postgres_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/mock"
)

// Issue 30 on PostgreSQL, across two processes' worth of Memory, each
// with its own store and indexes: a supersession decided by one's curator
// reaches the other's searches through the store and its change feed,
// and so does the caller's restoring the old note to current.
func TestSupersessionAcrossMemories(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	const oldText, newText = "I'm allergic to penicillin.", "I'm not allergic to penicillin after all."
	cur := &mock.Superseder{Supersedes: func(n, old amem.Note) (string, bool) {
		return "the allergy was ruled out", n.Content == newText && old.Content == oldText
	}}
	open := func(c amem.Curator) *memory.Memory {
		m, err := memory.Open(ctx, mustOpen(t, url, nil), &memory.Options{Embedder: lexical.New(nil), Curator: c, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	writer, reader := open(cur), open(nil)
	t0, t1 := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC), time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	old, err := writer.Add(ctx, amem.AddRequest{Namespace: "med", Content: oldText, EventTime: t0})
	if err != nil {
		t.Fatal(err)
	}
	search := func(req amem.SearchRequest) []amem.Result {
		t.Helper()
		req.Namespace, req.Query, req.LinksPerHit = "med", "allergic to penicillin", -1
		res, err := reader.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := search(amem.SearchRequest{}); len(res) != 1 || res[0].Note.ID != old.ID {
		t.Fatalf("before the new note: %+v", res) // the reader's indexes are loaded from here on
	}
	nw, err := writer.Add(ctx, amem.AddRequest{Namespace: "med", Content: newText, EventTime: t1})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchLexical, amem.SearchHybrid} {
		res := search(amem.SearchRequest{Mode: mode})
		if len(res) != 2 || res[0].Note.ID != nw.ID || res[1].Note.ID != old.ID || res[1].Note.SupersededBy != nw.ID || !res[1].Note.ValidUntil.Equal(t1) {
			t.Fatalf("%s: %+v", mode, res)
		}
		if res := search(amem.SearchRequest{Mode: mode, AsOf: t1.Add(-time.Hour)}); len(res) != 1 || res[0].Note.ID != old.ID || res[0].Note.SupersededBy != "" {
			t.Fatalf("%s as of before the change: %+v", mode, res)
		}
		if res := search(amem.SearchRequest{Mode: mode, ExcludeSuperseded: true}); len(res) != 1 || res[0].Note.ID != nw.ID {
			t.Fatalf("%s without superseded notes: %+v", mode, res)
		}
	}
	hist, err := reader.History(ctx, "med", old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := hist[len(hist)-1]; last.Actor != amem.ActorEvolve || last.Reason != "superseded by new note "+nw.ID+": the allergy was ruled out" {
		t.Fatalf("last version %+v", last)
	}

	// The reader's caller restores the old note; the writer's curator,
	// enriching the new note again, leaves it so.
	if _, err := reader.Update(ctx, "med", old.ID, amem.UpdateRequest{Validity: &amem.Validity{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Enrich(ctx, "med", nw.ID); err != nil {
		t.Fatal(err)
	}
	got, err := writer.Get(ctx, "med", old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SupersededBy != "" || !got.CallerValidity || slices.ContainsFunc(got.Links, func(l amem.Link) bool { return l.Kind == amem.LinkSupersedes }) {
		t.Fatalf("restored by the caller: %+v", got)
	}
	if res := search(amem.SearchRequest{ExcludeSuperseded: true}); len(res) != 2 {
		t.Fatalf("after the restore, without superseded notes: %+v", res)
	}
}
