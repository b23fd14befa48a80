package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// testValidity holds a store to issue 30's data model: a note's validity
// (ValidUntil, SupersededBy, CallerValidity) comes back from every read
// and the change feed, set and cleared by UpdateNote; a link's Kind comes
// back as written ("" stays ""); a version's snapshot keeps the validity;
// MatchIDs with Filter.ValidAt passes the notes without a ValidUntil or
// with one after it.
func testValidity(t *testing.T, s amem.Store) {
	ns := newNS("valid")
	until := base.Add(48 * time.Hour)
	a, b, c := newNote(ns, "I live in Boston."), newNote(ns, "I moved to Seattle."), newNote(ns, "I like tea.")
	a.ValidUntil, a.SupersededBy = until, b.ID
	c.ValidUntil, c.CallerValidity = until.Add(time.Hour), true
	insert(t, s, a, b, c)

	t.Run("reads", func(t *testing.T) {
		checkNote(t, getNote(t, s, ns, a.ID), a)
		checkNote(t, getNote(t, s, ns, c.ID), c)
		view(t, s, func(tx amem.Tx) error {
			for _, read := range []func(string, []string) ([]amem.Note, error){tx.Notes, tx.NotesWithoutEmbeddings} {
				got, err := read(ns, []string{a.ID})
				if err != nil {
					return err
				}
				want := a
				if got[0].Embedding == nil {
					want.Embedding = nil
				}
				checkNote(t, got[0], want)
			}
			page, err := tx.ListNotes(ns, amem.ListQuery{})
			if err != nil {
				return err
			}
			for _, n := range page {
				if n.ID == a.ID && (n.SupersededBy != b.ID || !n.ValidUntil.Equal(until)) {
					t.Errorf("ListNotes: %+v", n)
				}
			}
			return nil
		})
		for _, ch := range changes(t, s, ns, 0) {
			if ch.ID == c.ID && (!ch.Note.CallerValidity || !ch.Note.ValidUntil.Equal(c.ValidUntil)) {
				t.Errorf("the change feed's note %+v, want %+v", ch.Note, c)
			}
		}
	})

	t.Run("MatchIDs", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			f    amem.Filter
			want []string
		}{
			{"before both ends", amem.Filter{ValidAt: until.Add(-time.Nanosecond)}, []string{a.ID, b.ID, c.ID}},
			{"at a's end", amem.Filter{ValidAt: until}, []string{b.ID, c.ID}},
			{"after both", amem.Filter{ValidAt: until.Add(2 * time.Hour)}, []string{b.ID}},
			{"beyond storable times", amem.Filter{ValidAt: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{b.ID}},
			{"before storable times", amem.Filter{ValidAt: time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC)}, []string{a.ID, b.ID, c.ID}},
			{"with metadata", amem.Filter{ValidAt: until, Metadata: map[string]string{"speaker": "Ada"}}, []string{b.ID, c.ID}},
		} {
			view(t, s, func(tx amem.Tx) error {
				got, err := tx.MatchIDs(ns, tc.f)
				if err != nil {
					return err
				}
				if !slices.Equal(got, sorted(tc.want)) {
					t.Errorf("%s: MatchIDs = %v, want %v", tc.name, got, sorted(tc.want))
				}
				return nil
			})
		}
	})

	t.Run("links", func(t *testing.T) {
		sup := amem.Link{Source: b.ID, Target: a.ID, Reason: "moved", Strength: 0.8, CreatedAt: base, Kind: amem.LinkSupersedes}
		plain := amem.Link{Source: c.ID, Target: a.ID, Strength: 0.3, CreatedAt: base}
		putLinks(t, s, ns, sup, plain)
		got := normalize(getNote(t, s, ns, a.ID)).Links
		if want := normalize(amem.Note{Links: []amem.Link{sup, plain}}).Links; !slices.Equal(got, want) {
			t.Errorf("links:\n got %+v\nwant %+v", got, want)
		}
		sup.Kind = amem.LinkRelated
		putLinks(t, s, ns, sup)
		if got := getNote(t, s, ns, b.ID).Links; len(got) != 1 || got[0].Kind != amem.LinkRelated {
			t.Errorf("a replaced link's kind: %+v", got)
		}
	})

	t.Run("update", func(t *testing.T) {
		next := getNote(t, s, ns, a.ID)
		next.ValidUntil, next.SupersededBy, next.CallerValidity = time.Time{}, "", true
		next.Version++
		update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(next, next.Version-1) })
		checkNote(t, getNote(t, s, ns, a.ID), next)
		view(t, s, func(tx amem.Tx) error {
			got, err := tx.MatchIDs(ns, amem.Filter{ValidAt: until})
			if err == nil && !slices.Contains(got, a.ID) {
				t.Errorf("a note restored to current fails ValidAt: %v", got)
			}
			return err
		})
	})

	t.Run("versions", func(t *testing.T) {
		v := version(a, 2)
		v.Snapshot.ValidUntil, v.Snapshot.SupersededBy = until, b.ID
		update(t, s, func(tx amem.Tx) error { return tx.AddVersion(v) })
		view(t, s, func(tx amem.Tx) error {
			vs, err := tx.Versions(ns, a.ID)
			if err != nil {
				return err
			}
			for _, got := range vs {
				if got.Version == 2 && (!got.Snapshot.ValidUntil.Equal(until) || got.Snapshot.SupersededBy != b.ID) {
					t.Errorf("version 2's snapshot %+v", got.Snapshot)
				}
			}
			return nil
		})
	})
}
