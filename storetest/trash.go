package storetest

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

func trasher(t *testing.T, tx amem.Tx) amem.Trasher {
	t.Helper()
	tr, ok := tx.(amem.Trasher)
	if !ok {
		t.Fatalf("%T does not implement amem.Trasher", tx)
	}
	return tr
}

// trashedOf is what Memory puts in the trash for n: the note as read, with
// its links both ways, and its history.
func trashedOf(t *testing.T, s amem.Store, n amem.Note, at time.Time) amem.Trashed {
	t.Helper()
	var tr amem.Trashed
	view(t, s, func(tx amem.Tx) error {
		var err error
		if tr.Note, err = tx.Note(n.Namespace, n.ID); err != nil {
			return err
		}
		tr.Versions, err = tx.Versions(n.Namespace, n.ID)
		return err
	})
	tr.DeletedAt = at
	return tr
}

// A trashed note comes back whole (fields, vector, links both ways,
// history, deletion time, to the nanosecond and in UTC) from its own
// namespace only; a listing pages in ID order without vectors or
// history; entries are replaced by ID, deleted by ID (counting only those
// there) and emptied by age or all at once.
func testTrash(t *testing.T, s amem.Store) {
	ns, other := newNS("trash"), newNS("trash-other")
	a, b, c := newNote(ns, "alpha"), newNote(ns, "beta"), newNote(ns, "gamma")
	update(t, s, func(tx amem.Tx) error {
		for _, n := range []amem.Note{a, b, c} {
			if err := tx.InsertNote(n); err != nil {
				return err
			}
		}
		for _, v := range []int{1, 2} {
			if err := tx.AddVersion(version(a, v)); err != nil {
				return err
			}
		}
		if err := tx.PutLink(ns, amem.Link{Source: a.ID, Target: b.ID, Reason: "out", Strength: 0.5, CreatedAt: base}); err != nil {
			return err
		}
		return tx.PutLink(ns, amem.Link{Source: c.ID, Target: a.ID, Reason: "in", Strength: 0.25, CreatedAt: base})
	})
	want := trashedOf(t, s, a, base.Add(time.Hour))
	if len(want.Note.Links) != 2 || len(want.Versions) != 2 {
		t.Fatalf("set-up: %d links, %d versions", len(want.Note.Links), len(want.Versions))
	}
	update(t, s, func(tx amem.Tx) error {
		if err := trasher(t, tx).PutTrashed(want); err != nil {
			return err
		}
		return tx.DeleteNote(ns, a.ID)
	})
	want.DeletedAt = want.DeletedAt.UTC()
	view(t, s, func(tx amem.Tx) error {
		got, err := trasher(t, tx).TrashedNote(ns, a.ID)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("trashed note:\n got %+v\nwant %+v", got, want)
		}
		if _, err := trasher(t, tx).TrashedNote(other, a.ID); !errors.Is(err, amem.ErrNotFound) {
			t.Errorf("trashed note from another namespace: %v, want ErrNotFound", err)
		}
		if _, err := tx.Note(ns, a.ID); !errors.Is(err, amem.ErrNotFound) {
			t.Errorf("trashed note still live: %v", err)
		}
		if l, err := trasher(t, tx).ListTrashed(other, amem.TrashQuery{}); err != nil || len(l) != 0 {
			t.Errorf("another namespace's trash: %v, %v", l, err)
		}
		return nil
	})

	// Two more entries, one put twice: the second replaces the first.
	for i, n := range []amem.Note{b, c, c} {
		tr := trashedOf(t, s, n, base.Add(time.Duration(i+2)*time.Hour))
		update(t, s, func(tx amem.Tx) error { return trasher(t, tx).PutTrashed(tr) })
	}
	var page1, page2 []amem.Trashed
	view(t, s, func(tx amem.Tx) error {
		var err error
		if page1, err = trasher(t, tx).ListTrashed(ns, amem.TrashQuery{Limit: 2}); err != nil {
			return err
		}
		page2, err = trasher(t, tx).ListTrashed(ns, amem.TrashQuery{After: page1[len(page1)-1].Note.ID, Limit: 2})
		return err
	})
	var ids []string
	for _, e := range append(page1, page2...) {
		ids = append(ids, e.Note.ID)
		if e.Note.Embedding != nil || e.Versions != nil {
			t.Errorf("listed %s with its vector or history", e.Note.ID)
		}
	}
	wantIDs := []string{a.ID, b.ID, c.ID}
	slices.Sort(wantIDs)
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Errorf("listed %v, want %v in ID order", ids, wantIDs)
	}
	listedC := append(page1, page2...)[slices.Index(ids, c.ID)]
	if got := listedC.DeletedAt; !got.Equal(base.Add(4*time.Hour)) || got.Location() != time.UTC {
		t.Errorf("replaced entry deleted at %v, want %v in UTC", got, base.Add(4*time.Hour))
	}

	update(t, s, func(tx amem.Tx) error {
		tr := trasher(t, tx)
		if n, err := tr.DeleteTrashed(other, []string{a.ID}); err != nil || n != 0 {
			t.Errorf("delete from another namespace's trash: %d, %v", n, err)
		}
		if n, err := tr.DeleteTrashed(ns, []string{a.ID, newID()}); err != nil || n != 1 {
			t.Errorf("delete trashed: %d, %v; want 1", n, err)
		}
		if n, err := tr.EmptyTrash(ns, base.Add(3*time.Hour)); err != nil || n != 1 {
			t.Errorf("empty trash before b's deletion: %d, %v; want 1 (b)", n, err)
		}
		if _, err := tr.TrashedNote(ns, c.ID); err != nil {
			t.Errorf("c expired early: %v", err)
		}
		if n, err := tr.EmptyTrash(ns, time.Time{}); err != nil || n != 1 {
			t.Errorf("empty trash: %d, %v; want 1 (c)", n, err)
		}
		return nil
	})
}

// A note deleted into the trash and inserted again (a restore) is a
// removal and then a change in the feed, in that order, so a follower
// at any point before ends with it live.
func testTrashFeed(t *testing.T, s amem.Store) {
	ns := newNS("trash-feed")
	n := newNote(ns, "restored")
	update(t, s, func(tx amem.Tx) error { return tx.InsertNote(n) })
	f := &follower{live: map[string]int64{}}
	if err := f.catchUp(t, s, ns); err != nil {
		t.Fatal(err)
	}
	tr := trashedOf(t, s, n, base)
	update(t, s, func(tx amem.Tx) error {
		if err := trasher(t, tx).PutTrashed(tr); err != nil {
			return err
		}
		return tx.DeleteNote(ns, n.ID)
	})
	late := &follower{seq: f.seq, live: map[string]int64{n.ID: 1}}
	if err := f.catchUp(t, s, ns); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.live[n.ID]; ok {
		t.Fatalf("follower still has the trashed note")
	}
	update(t, s, func(tx amem.Tx) error {
		if _, err := trasher(t, tx).DeleteTrashed(ns, []string{n.ID}); err != nil {
			return err
		}
		back := tr.Note
		back.Version++
		return tx.InsertNote(back)
	})
	for name, fl := range map[string]*follower{"caught up": f, "behind the deletion": late} {
		if err := fl.catchUp(t, s, ns); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := fl.live[n.ID]; !ok {
			t.Errorf("follower %s misses the restored note", name)
		}
	}
}
