package memory_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/webhook"
)

// requiredOnly hands its store's transactions on with the required
// abilities alone (amem.Tx), hiding the optional ones: the event outbox
// (amem.EventRecorder) and token usage (amem.UsageKeeper).
type requiredOnly struct{ amem.Store }

func (s requiredOnly) Update(ctx context.Context, fn func(amem.Tx) error) error {
	return s.Store.Update(ctx, func(tx amem.Tx) error { return fn(struct{ amem.Tx }{tx}) })
}

func (s requiredOnly) View(ctx context.Context, fn func(amem.Tx) error) error {
	return s.Store.View(ctx, func(tx amem.Tx) error { return fn(struct{ amem.Tx }{tx}) })
}

// A store with the required abilities alone serves the whole pipeline
// with the documented fallbacks: notes are added, enriched, searched,
// updated and deleted; the tokens the curator spent are kept nowhere (no
// usage, no error), and no webhook event is queued, though the SQLite
// file underneath has a webhook for the namespace. The same memory over
// the whole store keeps both, so the test would see them.
func TestStoreWithRequiredAbilitiesOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := webhook.New("ns", webhook.Input{URL: "http://127.0.0.1:9/"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateWebhook(ctx, h); err != nil {
		t.Fatal(err)
	}
	pending := func() int {
		t.Helper()
		hs, err := st.Webhooks(ctx, "ns")
		if err != nil || len(hs) != 1 {
			t.Fatalf("webhooks: %v, %v", hs, err)
		}
		return hs[0].Pending
	}
	cur := usageCurator(func(context.Context, amem.Note) error { return nil })
	// Memory.Close closes its store: each memory has a handle of its own.
	use := func(wrap func(amem.Store) amem.Store) (notes int, tokens amem.Usage, events int) {
		// tokens: the note's usage before its deletion, plus the
		// namespace's in the stats.
		t.Helper()
		before := pending()
		s, err := sqlite.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := memory.Open(ctx, wrap(s), &memory.Options{Embedder: lexical.New(nil), Curator: cur, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		defer mem.Close()
		a := mustAdd(t, mem, "ns", "Our garden gets the morning sun")
		mustAdd(t, mem, "ns", "The quarterly budget review moved to Thursday")
		if a.Enrichment.State != amem.EnrichDone {
			t.Fatalf("enrichment: %s", a.Enrichment.State)
		}
		res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "garden sun", K: 1})
		if err != nil || len(res) == 0 || res[0].Note.ID != a.ID {
			t.Fatalf("search: %v, %v", res, err)
		}
		c := "Our garden gets the evening sun"
		if _, err := mem.Update(ctx, "ns", a.ID, amem.UpdateRequest{Content: &c}); err != nil {
			t.Fatal(err)
		}
		for _, u := range spent(t, mem, "ns", a.ID) {
			tokens = tokens.Add(u)
		}
		if err := mem.Delete(ctx, "ns", a.ID); err != nil {
			t.Fatal(err)
		}
		stats, err := mem.Stats(ctx, "ns")
		if err != nil || len(stats) != 1 {
			t.Fatalf("stats: %v, %v", stats, err)
		}
		return stats[0].Notes, tokens.Add(stats[0].Tokens), pending() - before
	}

	notes, tokens, events := use(func(s amem.Store) amem.Store { return requiredOnly{s} })
	if notes != 1 || tokens != (amem.Usage{}) || events != 0 {
		t.Errorf("required abilities only: %d notes left, %v tokens kept, %d events queued; want 1, none, none", notes, tokens, events)
	}
	notes, tokens, events = use(func(s amem.Store) amem.Store { return s })
	if notes != 2 || tokens == (amem.Usage{}) || events == 0 {
		t.Errorf("every ability: %d notes, %v tokens kept, %d events queued; want 2, some, some", notes, tokens, events)
	}
}
