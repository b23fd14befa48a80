package llmcurator_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/internal/fakellm"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/llmcurator"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/openai"
	"github.com/amem-dev/amem/sqlite"
)

// TestCallerAttributesWinOverTheModel: with a model behind the curator,
// keywords and a context the caller wrote survive construction,
// evolution (the model is told to rewrite the context of both
// neighbours; only the curator's changes) and re-enrichment.
func TestCallerAttributesWinOverTheModel(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(&fakellm.Server{})
	defer srv.Close()
	chat, err := openai.NewChat(openai.Config{BaseURL: srv.URL + "/v1", Model: fakellm.Model, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Curator: llmcurator.New(chat, nil), Enrich: enrich.Options{Candidates: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	add := func(req amem.AddRequest) amem.Note {
		t.Helper()
		req.Namespace = "ns"
		n, err := mem.Add(ctx, req)
		if err != nil || n.Enrichment.State != amem.EnrichDone {
			t.Fatalf("add %q: %v, %+v", req.Content, err, n.Enrichment)
		}
		return n
	}
	get := func(id string) amem.Note {
		t.Helper()
		n, err := mem.Get(ctx, "ns", id)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	wantMine := func(what string, n amem.Note) {
		t.Helper()
		if n.Context != "Mine." || !slices.Equal(n.Keywords, []string{"wednesday"}) {
			t.Errorf("%s: context %q, keywords %q; want the caller's", what, n.Context, n.Keywords)
		}
	}

	// Candidates are shown oldest first as M1, M2, M3, and the fake model
	// evolves M1's tags only, so the two notes to compare come later.
	day := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	add(amem.AddRequest{Content: "support group meeting on monday evening", EventTime: day})
	theirs := add(amem.AddRequest{Content: "support group meeting on tuesday evening", EventTime: day.Add(24 * time.Hour)})
	mine := add(amem.AddRequest{Content: "support group meeting moved to wednesday evening", EventTime: day.Add(48 * time.Hour),
		Context: "Mine.", Keywords: []string{"wednesday"}})
	wantMine("after construction", mine)
	// The fake model rewrites the context of each INJECTed reference; a
	// loose one (M0...02 for M2) names a candidate shown.
	add(amem.AddRequest{Content: "support group meeting notes INJECT M0000000000000000000000002 INJECT M0000000000000000000000003"})
	if got := get(theirs.ID).Context; got != "HACKED" {
		t.Fatalf("the curator's own context is %q: the model's evolution did not reach the neighbours, so the test shows nothing", got)
	}
	wantMine("after evolution", get(mine.ID))
	n, err := mem.Enrich(ctx, "ns", mine.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantMine("after re-enrichment", n)
}
