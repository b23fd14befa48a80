package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// eventTimePager returns the Tx's amem.EventTimePager, failing the test
// without it.
func eventTimePager(t *testing.T, tx amem.Tx) amem.EventTimePager {
	t.Helper()
	p, ok := tx.(amem.EventTimePager)
	if !ok {
		t.Fatalf("%T does not implement amem.EventTimePager", tx)
	}
	return p
}

// testNotesByEventTime holds NotesByEventTime to the order (EventTime,
// ID), zero times first, in both directions: ties broken by ID, every
// note read exactly once by pages of any size following each other's
// last key, a state filter, keys that are no note's, and nothing of
// another namespace.
func testNotesByEventTime(t *testing.T, s amem.Store) {
	ns := newNS("evtime")
	states := []amem.EnrichState{amem.EnrichPending, amem.EnrichDone, amem.EnrichFailed}
	// Few distinct times, so most notes tie; one before 1970 (negative
	// nanoseconds) and zero times, stored as NULL.
	times := []time.Time{{}, base, base.Add(-time.Nanosecond), base.Add(time.Hour), time.Date(1950, 6, 1, 0, 0, 0, 0, time.UTC)}
	var notes []amem.Note
	for i := range 40 {
		n := newNote(ns, fmt.Sprint("note ", i))
		n.EventTime = times[(i*7)%len(times)]
		n.Enrichment.State = states[i%len(states)]
		n.Embedding = []float32{1, 2, 3, 4}
		notes = append(notes, n)
	}
	// Insert out of ID order, so that insertion order is neither order.
	slices.Reverse(notes[10:30])
	insert(t, s, notes...)
	other := newNote(newNS("evtime-other"), "elsewhere")
	insert(t, s, other)
	putLinks(t, s, ns, amem.Link{Source: notes[0].ID, Target: notes[1].ID, Strength: 1, CreatedAt: base})

	key := func(n amem.Note) amem.EventKey { return amem.EventKey{Time: n.EventTime, ID: n.ID} }
	cmp := func(a, b amem.EventKey) int {
		if c := a.Time.Compare(b.Time); c != 0 { // the zero time is the earliest
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	want := func(newest bool, state amem.EnrichState) []string {
		var ks []amem.EventKey
		for _, n := range notes {
			if state == "" || n.Enrichment.State == state {
				ks = append(ks, key(n))
			}
		}
		slices.SortFunc(ks, cmp)
		if newest {
			slices.Reverse(ks)
		}
		ids := []string{}
		for _, k := range ks {
			ids = append(ids, k.ID)
		}
		return ids
	}
	read := func(after *amem.EventKey, limit int, newest bool, state amem.EnrichState) []amem.Note {
		t.Helper()
		var out []amem.Note
		view(t, s, func(tx amem.Tx) error {
			var err error
			out, err = eventTimePager(t, tx).NotesByEventTime(ns, after, limit, newest, state)
			return err
		})
		return out
	}
	walk := func(limit int, newest bool, state amem.EnrichState) []string {
		t.Helper()
		ids := []string{}
		var after *amem.EventKey
		for range 200 {
			page := read(after, limit, newest, state)
			if len(page) > limit {
				t.Fatalf("page of %d notes for limit %d", len(page), limit)
			}
			if len(page) == 0 {
				return ids
			}
			ids = append(ids, noteIDs(page)...)
			k := key(page[len(page)-1])
			after = &k
		}
		t.Fatal("paging did not end")
		return nil
	}

	for _, newest := range []bool{false, true} {
		dir := map[bool]string{false: "oldest", true: "newest"}[newest]
		t.Run(dir+" whole", func(t *testing.T) {
			got := read(nil, 0, newest, "")
			if ids := noteIDs(got); !slices.Equal(ids, want(newest, "")) {
				t.Fatalf("NotesByEventTime = %v,\nwant %v", ids, want(newest, ""))
			}
			for _, n := range got {
				if n.Embedding != nil || n.Links == nil {
					t.Errorf("note %s: embedding %v, links %v; want none, not nil", n.ID, n.Embedding, n.Links)
				}
				if n.ID == notes[0].ID && len(n.Links) != 1 {
					t.Errorf("note %s has links %+v, want 1", n.ID, n.Links)
				}
				if n.ID == notes[0].ID && !n.EventTime.IsZero() {
					t.Errorf("note %s: event time %v, want zero", n.ID, n.EventTime)
				}
			}
		})
		for _, limit := range []int{1, 3, 7, 8, 40, 100} {
			t.Run(fmt.Sprintf("%s limit %d", dir, limit), func(t *testing.T) {
				if got := walk(limit, newest, ""); !slices.Equal(got, want(newest, "")) {
					t.Errorf("walked %v,\nwant %v", got, want(newest, ""))
				}
			})
		}
		for _, st := range states {
			t.Run(fmt.Sprintf("%s state %s", dir, st), func(t *testing.T) {
				if got := walk(4, newest, st); !slices.Equal(got, want(newest, st)) {
					t.Errorf("walked %v,\nwant %v", got, want(newest, st))
				}
			})
		}
		// Keys that are no note's: between the notes of a tie, before and
		// after them all, at the zero time.
		t.Run(dir+" keys of no note", func(t *testing.T) {
			all := want(newest, "")
			at := map[string]amem.EventKey{}
			for _, n := range notes {
				at[n.ID] = key(n)
			}
			for _, k := range []amem.EventKey{
				{Time: base, ID: ""}, {Time: base, ID: "\x7f"}, {Time: base, ID: notes[5].ID + "0"},
				{ID: ""}, {ID: "\x7f"}, {Time: time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC)},
				{Time: time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)},
			} {
				var w []string
				for _, id := range all {
					if c := cmp(at[id], k); newest && c < 0 || !newest && c > 0 {
						w = append(w, id)
					}
				}
				got := noteIDs(read(&k, 100, newest, ""))
				if len(got) != len(w) || len(w) > 0 && !slices.Equal(got, w) {
					t.Errorf("after %v: %v,\nwant %v", k, got, w)
				}
			}
		})
	}
	view(t, s, func(tx amem.Tx) error {
		if _, err := eventTimePager(t, tx).NotesByEventTime(ns, nil, -1, false, ""); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("limit -1: %v, want ErrInvalid", err)
		}
		return nil
	})
}
