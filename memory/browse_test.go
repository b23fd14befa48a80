package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

// pagerOnly hands its store's read transactions on with the required
// abilities and amem.EventTimePager alone, counting the pages read by
// event time, so that a test knows which path Browse took.
type pagerOnly struct {
	amem.Store
	pages *atomic.Int64
}

func (s pagerOnly) View(ctx context.Context, fn func(amem.Tx) error) error {
	return s.Store.View(ctx, func(tx amem.Tx) error {
		return fn(struct {
			amem.Tx
			amem.EventTimePager
		}{tx, countPages{tx.(amem.EventTimePager), s.pages}})
	})
}

type countPages struct {
	amem.EventTimePager
	n *atomic.Int64
}

func (c countPages) NotesByEventTime(ns string, after *amem.EventKey, limit int, newest bool, state amem.EnrichState) ([]amem.Note, error) {
	c.n.Add(1)
	return c.EventTimePager.NotesByEventTime(ns, after, limit, newest, state)
}

// TestBrowseByEventTimeOracle pages a namespace by event time, across the
// chunks the notes are read in and with many ties, and checks the pages
// against all the notes sorted by (event time, ID): through the store's
// pages by event time (amem.EventTimePager), and through the scan a
// store without them, or a filtered browse, falls back to.
func TestBrowseByEventTimeOracle(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "amem.db")
	mem := openAt(t, path, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	reqs := make([]amem.AddRequest, 1100)
	for i := range reqs {
		reqs[i] = amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("note %d", i),
			EventTime: base.Add(time.Duration(rng.IntN(200)) * 24 * time.Hour), Tags: []string{fmt.Sprintf("t%d", i%3)}}
	}
	for i := 0; i < len(reqs); i += 550 {
		if _, err := mem.AddBatch(ctx, reqs[i:i+550]); err != nil {
			t.Fatal(err)
		}
	}
	all, err := mem.List(ctx, "ns", amem.ListQuery{Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	mem.Close()

	var pages atomic.Int64
	for _, store := range []struct {
		name string
		wrap func(amem.Store) amem.Store
	}{
		{"pager", func(s amem.Store) amem.Store { return pagerOnly{s, &pages} }},
		{"scan", func(s amem.Store) amem.Store { return requiredOnly{s} }},
	} {
		t.Run(store.name, func(t *testing.T) {
			s, err := sqlite.Open(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			mem, err := memory.Open(ctx, store.wrap(s), &memory.Options{Embedder: lexical.New(nil), Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			pages.Store(0)
			checkBrowseByEventTime(t, mem, all)
			if n := pages.Load(); store.name == "pager" && n == 0 {
				t.Error("no page was read by event time from the store")
			}
		})
	}
}

func checkBrowseByEventTime(t *testing.T, mem *memory.Memory, all []amem.Note) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		newest bool
		state  amem.EnrichState
		filter amem.Filter
	}{
		{"oldest", false, "", amem.Filter{}},
		{"newest", true, "", amem.Filter{}},
		{"newest, done", true, amem.EnrichDone, amem.Filter{}},
		{"newest, tag t1", true, "", amem.Filter{Tags: []string{"t1"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want []string
			for _, n := range all {
				if len(c.filter.Tags) == 0 || slices.Contains(n.Tags, c.filter.Tags[0]) {
					want = append(want, n.ID)
				}
			}
			at := map[string]time.Time{}
			for _, n := range all {
				at[n.ID] = n.EventTime
			}
			slices.SortFunc(want, func(a, b string) int {
				if c := at[a].Compare(at[b]); c != 0 {
					return c
				}
				return strings.Compare(a, b)
			})
			if c.newest {
				slices.Reverse(want)
			}
			var got []string
			after := ""
			for range 100 {
				page, err := mem.Browse(ctx, "ns", amem.BrowseQuery{After: after, Limit: 150, Newest: c.newest, ByEventTime: true, State: c.state, Filter: c.filter})
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range page {
					got = append(got, n.ID)
				}
				if len(page) < 150 {
					break
				}
				after = page[len(page)-1].ID
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d notes paged, want %d in (event time, ID) order", len(got), len(want))
			}
		})
	}
	page, err := mem.Browse(ctx, "ns", amem.BrowseQuery{Limit: 10, ByEventTime: true, State: amem.EnrichPending})
	if err != nil || len(page) != 0 {
		t.Errorf("pending notes: %d, %v; want none", len(page), err)
	}
	if _, err := mem.Browse(ctx, "ns", amem.BrowseQuery{After: "01ARZ3NDEKTSV4RRFFQ69G5FAV", Limit: 10, ByEventTime: true}); err == nil {
		t.Error("after a note that isn't there: no error")
	}
}
