package memory_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

func allModeIDs(t *testing.T, mem *memory.Memory, ns, q string) []string {
	t.Helper()
	var ids []string
	for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchLexical, amem.SearchHybrid} {
		res, err := mem.Search(context.Background(), amem.SearchRequest{Namespace: ns, Query: q, Mode: mode, K: 10, LinksPerHit: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if !slices.Contains(ids, r.Note.ID) {
				ids = append(ids, r.Note.ID)
			}
		}
	}
	return ids
}

func linkEnds(n amem.Note) []string {
	var ids []string
	for _, l := range n.Links {
		ids = append(ids, l.Other(n.ID))
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// A deleted note is gone from reads and every search mode, listed in the
// trash, and restored as its next version with its history and its links
// both ways to the notes that still exist; a note purged meanwhile
// leaves no link.
func TestTrashRestoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator())
	a := mustAdd(t, mem, "ns", "piano lessons on Tuesday")
	b := mustAdd(t, mem, "ns", "piano recital on Friday")
	c := mustAdd(t, mem, "ns", "piano tuner visit")
	content := "piano recital moved to Saturday"
	if _, err := mem.Update(ctx, "ns", b.ID, amem.UpdateRequest{Content: &content}); err != nil {
		t.Fatal(err)
	}
	before, err := mem.Get(ctx, "ns", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	history, err := mem.History(ctx, "ns", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := linkEnds(before); len(got) != 2 {
		t.Fatalf("set-up: b links to %v, want a and c", got)
	}

	if err := mem.Delete(ctx, "ns", b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Get(ctx, "ns", b.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("get a trashed note: %v", err)
	}
	if slices.Contains(allModeIDs(t, mem, "ns", "piano recital Saturday"), b.ID) {
		t.Fatal("trashed note found by search")
	}
	list, err := mem.Trash().List(ctx, "ns", amem.TrashQuery{})
	if err != nil || len(list) != 1 || list[0].Note.ID != b.ID || list[0].Note.Content != content {
		t.Fatalf("trash = %+v, %v; want b", list, err)
	}
	if l, err := mem.Trash().List(ctx, "other", amem.TrashQuery{}); err != nil || len(l) != 0 {
		t.Fatalf("another namespace's trash: %v, %v", l, err)
	}
	if _, err := mem.Trash().Restore(ctx, "other", b.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("restore into another namespace: %v, want ErrNotFound", err)
	}
	if err := mem.Purge(ctx, "ns", a.ID); err != nil {
		t.Fatal(err)
	}

	got, err := mem.Trash().Restore(ctx, "ns", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != before.Version+1 || got.Content != content {
		t.Errorf("restored at version %d with %q, want %d with %q", got.Version, got.Content, before.Version+1, content)
	}
	if ends := linkEnds(got); !slices.Equal(ends, []string{c.ID}) {
		t.Errorf("restored links to %v, want only c (a was purged)", ends)
	}
	if cn, err := mem.Get(ctx, "ns", c.ID); err != nil || !slices.Contains(linkEnds(cn), b.ID) {
		t.Errorf("c's links after the restore: %v, %v; want b among them", linkEnds(cn), err)
	}
	after, err := mem.History(ctx, "ns", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(history)+1 || after[len(after)-1].Actor != amem.ActorRestore {
		t.Fatalf("history after restore: %d versions, last %+v; want the %d before and a restore", len(after), after[len(after)-1], len(history))
	}
	for i, v := range history {
		if after[i].Version != v.Version || after[i].Snapshot.Content != v.Snapshot.Content || after[i].Actor != v.Actor {
			t.Errorf("version %d changed by the trash: %+v, was %+v", v.Version, after[i], v)
		}
	}
	if !slices.Contains(allModeIDs(t, mem, "ns", "piano recital Saturday"), b.ID) {
		t.Error("restored note not found by search")
	}
	if l, _ := mem.Trash().List(ctx, "ns", amem.TrashQuery{}); len(l) != 0 {
		t.Errorf("trash after the restore: %+v", l)
	}
	if _, err := mem.Trash().Restore(ctx, "ns", b.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Errorf("second restore: %v, want ErrNotFound", err)
	}
}

// Purge is final whether the note is live or trashed, and a purged ID is
// not found by a second purge.
func TestPurgeIsFinal(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	live := mustAdd(t, mem, "ns", "a live note purged")
	trashed := mustAdd(t, mem, "ns", "a trashed note purged")
	emptied := mustAdd(t, mem, "ns", "a note in an emptied trash")
	if err := mem.Delete(ctx, "ns", trashed.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{live.ID, trashed.ID} {
		if err := mem.Purge(ctx, "ns", id); err != nil {
			t.Fatalf("purge %s: %v", id, err)
		}
		if err := mem.Purge(ctx, "ns", id); !errors.Is(err, amem.ErrNotFound) {
			t.Errorf("second purge of %s: %v, want ErrNotFound", id, err)
		}
		if _, err := mem.Trash().Restore(ctx, "ns", id); !errors.Is(err, amem.ErrNotFound) {
			t.Errorf("restore of purged %s: %v, want ErrNotFound", id, err)
		}
		if slices.Contains(allModeIDs(t, mem, "ns", "note purged"), id) {
			t.Errorf("purged %s found by search", id)
		}
	}
	if err := mem.Delete(ctx, "ns", emptied.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := mem.Trash().Purge(ctx, "ns", []string{emptied.ID, live.ID}); err != nil || n != 1 {
		t.Errorf("trash purge: %d, %v; want 1", n, err)
	}
	if n, err := mem.Trash().Empty(ctx, "ns"); err != nil || n != 0 {
		t.Errorf("empty an empty trash: %d, %v", n, err)
	}
}

// Notes leave the trash for good once TrashFor has passed: hidden at
// once, removed by the next Delete in the namespace or by Expire.
func TestTrashRetention(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	mem := openOpts(t, filepath.Join(t.TempDir(), "amem.db"), memory.Options{Embedder: lexical.New(nil), Now: clock, TrashFor: 48 * time.Hour})
	defer mem.Close()
	if got := mem.Trash().Retention(); got != 48*time.Hour {
		t.Fatalf("retention %v", got)
	}
	old, young, other := mustAdd(t, mem, "ns", "old"), mustAdd(t, mem, "ns", "young"), mustAdd(t, mem, "ns2", "other")
	for _, n := range []amem.Note{old, other} {
		if err := mem.Delete(ctx, n.Namespace, n.ID); err != nil {
			t.Fatal(err)
		}
	}
	advance(47 * time.Hour)
	if l, _ := mem.Trash().List(ctx, "ns", amem.TrashQuery{}); len(l) != 1 {
		t.Fatalf("trash within retention: %+v", l)
	}
	advance(2 * time.Hour)
	if l, _ := mem.Trash().List(ctx, "ns", amem.TrashQuery{}); len(l) != 0 {
		t.Fatalf("trash past retention lists %+v", l)
	}
	if _, err := mem.Trash().Restore(ctx, "ns", old.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("restore past retention: %v, want ErrNotFound", err)
	}
	if err := mem.Delete(ctx, "ns", young.ID); err != nil { // expires old in ns
		t.Fatal(err)
	}
	if n, err := mem.Trash().Expire(ctx); err != nil || n != 1 {
		t.Fatalf("expire: %d, %v; want 1 (ns2's note; ns's went with the delete)", n, err)
	}
	if _, err := mem.Trash().Restore(ctx, "ns", young.ID); err != nil {
		t.Fatalf("restore within retention: %v", err)
	}
}

// With the trash off (or a store without amem.Trasher) Delete deletes for
// good.
func TestTrashOff(t *testing.T) {
	ctx := context.Background()
	for name, mem := range map[string]*memory.Memory{
		"TrashFor < 0":  openOpts(t, filepath.Join(t.TempDir(), "off.db"), memory.Options{Embedder: lexical.New(nil), TrashFor: -1}),
		"required only": openRequiredOnly(t),
	} {
		t.Run(name, func(t *testing.T) {
			defer mem.Close()
			n := mustAdd(t, mem, "ns", "gone for good")
			if err := mem.Delete(ctx, "ns", n.ID); err != nil {
				t.Fatal(err)
			}
			if l, err := mem.Trash().List(ctx, "ns", amem.TrashQuery{}); err != nil || len(l) != 0 {
				t.Errorf("trash: %+v, %v", l, err)
			}
			if _, err := mem.Trash().Restore(ctx, "ns", n.ID); !errors.Is(err, amem.ErrNotFound) {
				t.Errorf("restore: %v, want ErrNotFound", err)
			}
			if mem.Trash().Retention() != 0 && name == "TrashFor < 0" {
				t.Errorf("retention %v with the trash off", mem.Trash().Retention())
			}
		})
	}
}

func openRequiredOnly(t *testing.T) *memory.Memory {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(context.Background(), requiredOnly{st}, &memory.Options{Embedder: lexical.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

// A note trashed by one process is gone from the other's search, and
// back in it once restored there: both follow the change feed.
func TestTrashAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	a, b := twoOnOneStore(t, memory.Options{})
	defer b.Close()
	n := mustAdd(t, a, "ns", "harbour lighthouse keeper")
	mustAdd(t, a, "ns", "mountain cabin")
	if !slices.Contains(allModeIDs(t, b, "ns", "lighthouse keeper"), n.ID) {
		t.Fatal("b does not find the note")
	}
	if err := a.Delete(ctx, "ns", n.ID); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(allModeIDs(t, b, "ns", "lighthouse keeper"), n.ID) {
		t.Fatal("b finds the trashed note")
	}
	if _, err := b.Trash().Restore(ctx, "ns", n.ID); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*memory.Memory{"a": a, "b": b} {
		if !slices.Contains(allModeIDs(t, m, "ns", "lighthouse keeper"), n.ID) {
			t.Errorf("%s does not find the restored note", name)
		}
	}
}

// A restore is a webhook event of its own kind, recorded with the write.
func TestRestoreEvent(t *testing.T) {
	ctx := context.Background()
	st := storeWithWebhook(t, "ns", amem.EventRestored)
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	n := mustAdd(t, mem, "ns", "restored with an event")
	if err := mem.Delete(ctx, "ns", n.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Trash().Restore(ctx, "ns", n.ID); err != nil {
		t.Fatal(err)
	}
	hs, err := st.Webhooks(ctx, "ns")
	if err != nil || len(hs) != 1 || hs[0].Pending != 1 {
		t.Fatalf("webhooks %+v, %v; want one restored event pending", hs, err)
	}
}

// Two processes restoring one note at once: one brings it back, the
// other finds the trash without it; the history has one restore.
func TestTrashRestoreRace(t *testing.T) {
	ctx := context.Background()
	a, b := twoOnOneStore(t, memory.Options{})
	defer b.Close()
	for round := range 5 {
		n := mustAdd(t, a, "ns", "restored by one process only")
		if err := a.Delete(ctx, "ns", n.ID); err != nil {
			t.Fatal(err)
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, m := range []*memory.Memory{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = m.Trash().Restore(ctx, "ns", n.ID)
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, amem.ErrNotFound):
				t.Fatalf("round %d: restore: %v", round, err)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d restores succeeded, want 1 (%v)", round, ok, errs)
		}
		hist, err := b.History(ctx, "ns", n.ID)
		if err != nil {
			t.Fatal(err)
		}
		restores := 0
		for _, v := range hist {
			if v.Actor == amem.ActorRestore {
				restores++
			}
		}
		if restores != 1 {
			t.Fatalf("round %d: %d restore versions", round, restores)
		}
	}
}
