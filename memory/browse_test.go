package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// TestBrowseByEventTimeOracle pages a namespace by event time, across the
// chunks the notes are read in and with many ties, and checks the pages
// against all the notes sorted by (event time, ID).
func TestBrowseByEventTimeOracle(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
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
	for _, c := range []struct {
		name   string
		newest bool
		filter amem.Filter
	}{
		{"oldest", false, amem.Filter{}},
		{"newest", true, amem.Filter{}},
		{"newest, tag t1", true, amem.Filter{Tags: []string{"t1"}}},
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
				page, err := mem.Browse(ctx, "ns", amem.BrowseQuery{After: after, Limit: 150, Newest: c.newest, ByEventTime: true, Filter: c.filter})
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
}
