package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

func testVersions(t *testing.T, s amem.Store) {
	ns := newNS("versions")
	n := newNote(ns, "versioned")
	insert(t, s, n)
	v1, v2, v3 := version(n, 1), version(n, 2), version(n, 3)
	v2.Actor, v2.Reason = amem.ActorEvolve, "evolved by a newer note"
	v2.Changes = []amem.FieldChange{
		{Field: "tags", Old: `["a"]`, New: `["a","b"]`},
		{Field: "context", Old: `"old"`, New: `"new <&> ü"`},
	}
	v2.Snapshot.Metadata = nil
	v3.Changes = nil
	v3.Snapshot = amem.Snapshot{Content: "bare"}
	update(t, s, func(tx amem.Tx) error {
		for _, v := range []amem.Version{v3, v1, v2} { // out of order
			if err := tx.AddVersion(v); err != nil {
				return err
			}
		}
		return nil
	})
	var got []amem.Version
	view(t, s, func(tx amem.Tx) error {
		var err error
		got, err = tx.Versions(ns, n.ID)
		return err
	})
	want := []amem.Version{v1, v2, v3}
	if len(got) != len(want) {
		t.Fatalf("Versions returned %d versions, want 3: %+v", len(got), got)
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Changes == nil {
			w.Changes = []amem.FieldChange{}
		}
		if w.Snapshot.Keywords == nil {
			w.Snapshot.Keywords = []string{}
		}
		if w.Snapshot.Tags == nil {
			w.Snapshot.Tags = []string{}
		}
		w.CreatedAt, w.Snapshot.EventTime = w.CreatedAt.UTC(), w.Snapshot.EventTime.UTC()
		if g.CreatedAt.Location() != time.UTC || (!g.Snapshot.EventTime.IsZero() && g.Snapshot.EventTime.Location() != time.UTC) {
			t.Errorf("version %d: times not in UTC: %v, %v", g.Version, g.CreatedAt, g.Snapshot.EventTime)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("version %d:\n got %+v\nwant %+v", w.Version, g, w)
		}
	}

	t.Run("duplicate", func(t *testing.T) {
		err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.AddVersion(v2) })
		if !errors.Is(err, amem.ErrConflict) {
			t.Errorf("AddVersion of an existing version: err = %v, want amem.ErrConflict", err)
		}
	})
	t.Run("missing note", func(t *testing.T) {
		err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.AddVersion(version(newNote(ns, "x"), 1)) })
		wantNotFound(t, "AddVersion of a missing note", err)
	})
	t.Run("none", func(t *testing.T) {
		view(t, s, func(tx amem.Tx) error {
			vs, err := tx.Versions(ns, newID())
			if err == nil && (vs == nil || len(vs) != 0) {
				t.Errorf("Versions of a missing note = %#v, want empty", vs)
			}
			return err
		})
	})
}

func testUsage(t *testing.T, s amem.Store) {
	ns, other := newNS("usage"), newNS("usage-other")
	recs := []amem.UsageRecord{
		{Namespace: ns, NoteID: newID(), Operation: "construct", Usage: amem.Usage{PromptTokens: 100, CompletionTokens: 20}, At: base},
		{Namespace: ns, NoteID: newID(), Operation: "connect", Usage: amem.Usage{PromptTokens: 300, CompletionTokens: 40}, At: base},
		{Namespace: ns, NoteID: newID(), Operation: "construct", Usage: amem.Usage{PromptTokens: 50, CompletionTokens: 5}, At: base},
		{Namespace: ns, Operation: "answer", Usage: amem.Usage{PromptTokens: 7}, At: base},
		{Namespace: other, Operation: "construct", Usage: amem.Usage{PromptTokens: 1000, CompletionTokens: 1000}, At: base},
	}
	update(t, s, func(tx amem.Tx) error {
		for _, r := range recs {
			if err := usageKeeper(t, tx).RecordUsage(r); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, s, func(tx amem.Tx) error {
		got, err := usageKeeper(t, tx).UsageTotals(ns)
		if err != nil {
			return err
		}
		want := []amem.UsageTotal{
			{Operation: "answer", Calls: 1, Usage: amem.Usage{PromptTokens: 7}},
			{Operation: "connect", Calls: 1, Usage: amem.Usage{PromptTokens: 300, CompletionTokens: 40}},
			{Operation: "construct", Calls: 2, Usage: amem.Usage{PromptTokens: 150, CompletionTokens: 25}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("UsageTotals = %+v, want %+v", got, want)
		}
		one, err := usageKeeper(t, tx).NoteUsage(ns, recs[0].NoteID)
		if err != nil {
			return err
		}
		if want := []amem.UsageTotal{{Operation: "construct", Calls: 1, Usage: recs[0].Usage}}; !reflect.DeepEqual(one, want) {
			t.Errorf("NoteUsage = %+v, want %+v", one, want)
		}
		if none, err := usageKeeper(t, tx).NoteUsage(other, recs[0].NoteID); err != nil || none == nil || len(none) != 0 {
			t.Errorf("NoteUsage in another namespace = %#v, %v; want empty", none, err)
		}
		none, err := usageKeeper(t, tx).UsageTotals(newNS("usage-none"))
		if err != nil {
			return err
		}
		if none == nil || len(none) != 0 {
			t.Errorf("UsageTotals of an empty namespace = %#v, want empty", none)
		}
		return nil
	})
}

func testStats(t *testing.T, s amem.Store) {
	ns := newNS("stats")
	view(t, s, func(tx amem.Tx) error {
		st, err := tx.Stats(ns)
		if err == nil && (st.Notes != 0 || st.Links != 0 || st.ByState[amem.EnrichDone] != 0) {
			t.Errorf("Stats of an empty namespace = %+v", st)
		}
		return err
	})
	var notes []amem.Note
	for i, st := range []amem.EnrichState{amem.EnrichPending, amem.EnrichDone, amem.EnrichDone, amem.EnrichFailed, amem.EnrichDone} {
		n := newNote(ns, fmt.Sprint("note ", i))
		n.Enrichment.State = st
		notes = append(notes, n)
	}
	insert(t, s, notes...)
	insert(t, s, newNote(newNS("stats-other"), "elsewhere"))
	putLinks(t, s, ns,
		amem.Link{Source: notes[0].ID, Target: notes[1].ID, Strength: 1},
		amem.Link{Source: notes[1].ID, Target: notes[0].ID, Strength: 1},
		amem.Link{Source: notes[2].ID, Target: notes[3].ID, Strength: 1},
	)
	view(t, s, func(tx amem.Tx) error {
		st, err := tx.Stats(ns)
		if err != nil {
			return err
		}
		if st.Notes != 5 || st.Links != 3 || st.ByState[amem.EnrichPending] != 1 ||
			st.ByState[amem.EnrichDone] != 3 || st.ByState[amem.EnrichFailed] != 1 {
			t.Errorf("Stats = %+v, want 5 notes (1 pending, 3 done, 1 failed), 3 links", st)
		}
		return nil
	})
}

func testRollbackOnError(t *testing.T, s amem.Store) {
	ns := newNS("rollback")
	kept := newNote(ns, "kept")
	insert(t, s, kept)
	n := newNote(ns, "rolled back")
	boom := errors.New("boom")
	err := s.Update(t.Context(), func(tx amem.Tx) error {
		if err := tx.InsertNote(n); err != nil {
			return err
		}
		if err := tx.PutLink(ns, amem.Link{Source: n.ID, Target: kept.ID, Strength: 1}); err != nil {
			return err
		}
		if err := tx.PutNamespace(amem.NamespaceInfo{Name: ns, Embedder: "x", Dimensions: 1}); err != nil {
			return err
		}
		if err := usageKeeper(t, tx).RecordUsage(amem.UsageRecord{Namespace: ns, Operation: "embed", At: base}); err != nil {
			return err
		}
		u := kept
		u.Content = "changed"
		if err := tx.UpdateNote(u, kept.Version); err != nil {
			return err
		}
		return fmt.Errorf("wrapped: %w", boom)
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	checkRolledBack(t, s, ns, n.ID, kept)
}

func testRollbackOnPanic(t *testing.T, s amem.Store) {
	ns := newNS("panic")
	kept := newNote(ns, "kept")
	insert(t, s, kept)
	n := newNote(ns, "rolled back")
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the panic of fn", r)
			}
		}()
		_ = s.Update(t.Context(), func(tx amem.Tx) error {
			if err := tx.InsertNote(n); err != nil {
				return err
			}
			u := kept
			u.Content = "changed"
			if err := tx.UpdateNote(u, kept.Version); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	checkRolledBack(t, s, ns, n.ID, kept)
	// The store still writes.
	after := newNote(ns, "after the panic")
	insert(t, s, after)
	getNote(t, s, ns, after.ID)
}

func checkRolledBack(t *testing.T, s amem.Store, ns, id string, kept amem.Note) {
	t.Helper()
	view(t, s, func(tx amem.Tx) error {
		_, err := tx.Note(ns, id)
		wantNotFound(t, "note of a rolled-back transaction", err)
		_, err = tx.Namespace(ns)
		wantNotFound(t, "namespace of a rolled-back transaction", err)
		u, err := usageKeeper(t, tx).UsageTotals(ns)
		if err == nil && len(u) != 0 {
			t.Errorf("usage of a rolled-back transaction: %+v", u)
		}
		return err
	})
	checkNote(t, getNote(t, s, ns, kept.ID), kept)
}

func testViewIsReadOnly(t *testing.T, s amem.Store) {
	ns := newNS("readonly")
	n := newNote(ns, "existing")
	insert(t, s, n)
	fresh := newNote(ns, "never stored")
	for _, tc := range []struct {
		name string
		fn   func(tx amem.Tx) error
	}{
		{"InsertNote", func(tx amem.Tx) error { return tx.InsertNote(fresh) }},
		{"UpdateNote", func(tx amem.Tx) error {
			u := n
			u.Content = "changed"
			return tx.UpdateNote(u, n.Version)
		}},
		{"DeleteNote", func(tx amem.Tx) error { return tx.DeleteNote(ns, n.ID) }},
		{"PutNamespace", func(tx amem.Tx) error {
			return tx.PutNamespace(amem.NamespaceInfo{Name: ns, Embedder: "e", Dimensions: 1})
		}},
		{"RecordUsage", func(tx amem.Tx) error {
			return usageKeeper(t, tx).RecordUsage(amem.UsageRecord{Namespace: ns, Operation: "x"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opErr error
			// fn ignores the error: the View still must not write. What
			// View itself returns then is up to the store.
			_ = s.View(t.Context(), func(tx amem.Tx) error {
				opErr = tc.fn(tx)
				return nil
			})
			if opErr == nil {
				t.Errorf("%s in View succeeded", tc.name)
			}
		})
	}
	checkRolledBack(t, s, ns, fresh.ID, n)
}

func testCanceledContext(t *testing.T, s amem.Store) {
	ns := newNS("canceled")
	n := newNote(ns, "never stored")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := s.Update(ctx, func(tx amem.Tx) error { return tx.InsertNote(n) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a canceled context: err = %v, want context.Canceled", err)
	}
	if err := s.View(ctx, func(tx amem.Tx) error { _, err := tx.Namespaces(); return err }); !errors.Is(err, context.Canceled) {
		t.Errorf("View with a canceled context: err = %v, want context.Canceled", err)
	}
	view(t, s, func(tx amem.Tx) error {
		_, err := tx.Note(ns, n.ID)
		wantNotFound(t, "note written with a canceled context", err)
		return nil
	})
}

func testTxAfterFn(t *testing.T, s amem.Store) {
	ns := newNS("after")
	n := newNote(ns, "late")
	var kept amem.Tx
	update(t, s, func(tx amem.Tx) error {
		kept = tx
		return nil
	})
	if err := kept.InsertNote(n); err == nil {
		t.Errorf("InsertNote on a finished transaction succeeded")
	}
	if _, err := kept.Note(ns, n.ID); err == nil {
		t.Errorf("Note on a finished transaction succeeded")
	}
}

func testConcurrent(t *testing.T, s amem.Store) {
	ns := newNS("concurrent")
	const writers, perWriter, readers = 4, 15, 4
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				n := newNote(ns, fmt.Sprintf("writer %d note %d", w, i))
				if err := s.Update(t.Context(), func(tx amem.Tx) error {
					if _, err := tx.Stats(ns); err != nil { // read, then write
						return err
					}
					return tx.InsertNote(n)
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	stop := make(chan struct{})
	var rg sync.WaitGroup
	for r := 0; r < readers; r++ {
		rg.Add(1)
		go func() {
			defer rg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.View(t.Context(), func(tx amem.Tx) error {
					a, err := tx.Stats(ns)
					if err != nil {
						return err
					}
					list, err := tx.ListNotes(ns, amem.ListQuery{Limit: 1000})
					if err != nil {
						return err
					}
					if len(list) != a.Notes { // a snapshot: both reads agree
						return fmt.Errorf("view saw %d notes, then %d", a.Notes, len(list))
					}
					return nil
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	view(t, s, func(tx amem.Tx) error {
		st, err := tx.Stats(ns)
		if err == nil && st.Notes != writers*perWriter {
			t.Errorf("%d notes after concurrent writes, want %d", st.Notes, writers*perWriter)
		}
		return err
	})
}

func testClosed(t *testing.T, s amem.Store) {
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Update(t.Context(), func(amem.Tx) error { return nil }); !errors.Is(err, amem.ErrClosed) {
		t.Errorf("Update after Close: err = %v, want amem.ErrClosed", err)
	}
	if err := s.View(t.Context(), func(amem.Tx) error { return nil }); !errors.Is(err, amem.ErrClosed) {
		t.Errorf("View after Close: err = %v, want amem.ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
