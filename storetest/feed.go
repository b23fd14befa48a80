package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// follower is what an index keeps: the feed position and the live IDs.
type follower struct {
	seq  int64
	live map[string]int64 // ID -> number of the change that put it there
}

// catchUp reads the head and the changes since in one snapshot, as
// Memory's index does, and checks the feed's promises on the way.
func (f *follower) catchUp(t *testing.T, s amem.Store, ns string) error {
	return s.View(context.Background(), func(tx amem.Tx) error {
		head, err := tx.FeedHead(ns)
		if err != nil {
			return err
		}
		if head.Head < f.seq {
			return fmt.Errorf("feed head went back from %d to %d", f.seq, head.Head)
		}
		if f.seq < head.Horizon {
			return fmt.Errorf("follower at %d fell behind the horizon %d", f.seq, head.Horizon)
		}
		last := f.seq
		err = tx.Changes(ns, f.seq, func(c amem.Change) error {
			if c.Seq <= f.seq || c.Seq > head.Head {
				return fmt.Errorf("change %d of %s outside (%d, %d]", c.Seq, c.ID, f.seq, head.Head)
			}
			if c.Seq < last {
				return fmt.Errorf("change %d after change %d: not in order", c.Seq, last)
			}
			last = c.Seq
			if c.Deleted {
				delete(f.live, c.ID)
				return nil
			}
			if c.Note.ID != c.ID || c.Note.Namespace != ns {
				return fmt.Errorf("change %d names %s but holds note %s of %s", c.Seq, c.ID, c.Note.ID, c.Note.Namespace)
			}
			f.live[c.ID] = c.Seq
			return nil
		})
		if err != nil {
			return err
		}
		f.seq = head.Head
		return nil
	})
}

func head(t *testing.T, s amem.Store, ns string) amem.Feed {
	t.Helper()
	var f amem.Feed
	view(t, s, func(tx amem.Tx) error {
		var err error
		f, err = tx.FeedHead(ns)
		return err
	})
	return f
}

func changes(t *testing.T, s amem.Store, ns string, after int64) []amem.Change {
	t.Helper()
	var out []amem.Change
	view(t, s, func(tx amem.Tx) error {
		return tx.Changes(ns, after, func(c amem.Change) error {
			c.Note.Embedding = slices.Clone(c.Note.Embedding)
			out = append(out, c)
			return nil
		})
	})
	return out
}

func testFeed(t *testing.T, s amem.Store) {
	ns, other := newNS("feed"), newNS("feed-other")
	if f := head(t, s, ns); f != (amem.Feed{}) {
		t.Fatalf("a namespace never written has feed %+v, want zero", f)
	}
	a, b, c := newNote(ns, "first"), newNote(ns, "second"), newNote(ns, "third")
	update(t, s, func(tx amem.Tx) error {
		if err := tx.PutNamespace(amem.NamespaceInfo{Name: ns, Embedder: "test-model", Dimensions: 4, CreatedAt: base}); err != nil {
			return err
		}
		for _, n := range []amem.Note{a, b} {
			if err := tx.InsertNote(n); err != nil {
				return err
			}
		}
		return nil
	})
	f1 := head(t, s, ns)
	if f1.Head != 1 || f1.Embedder != "test-model" || f1.Dimensions != 4 {
		t.Fatalf("after one transaction: feed %+v, want head 1 and the namespace's embedder", f1)
	}
	got := changes(t, s, ns, 0)
	if len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 1 {
		t.Fatalf("changes after 0: %+v, want both notes at 1", got)
	}
	for _, ch := range got {
		want := a
		if ch.ID == b.ID {
			want = b
		}
		checkNote(t, ch.Note, want)
	}

	// A rolled-back write takes no number.
	_ = s.Update(t.Context(), func(tx amem.Tx) error {
		if err := tx.InsertNote(c); err != nil {
			return err
		}
		return errors.New("roll back")
	})
	if f := head(t, s, ns); f.Head != 1 {
		t.Fatalf("a rolled-back write moved the head to %d", f.Head)
	}

	// Another namespace has its own numbers.
	update(t, s, func(tx amem.Tx) error { return tx.InsertNote(newNote(other, "elsewhere")) })
	if f := head(t, s, other); f.Head != 1 {
		t.Fatalf("other namespace head %d, want 1", f.Head)
	}
	if f := head(t, s, ns); f.Head != 1 {
		t.Fatalf("a write to another namespace moved this one's head to %d", f.Head)
	}

	// Update a, delete b, insert c: one number, 2, for the transaction.
	u := a
	u.Content, u.Version = "first, rewritten", 2
	update(t, s, func(tx amem.Tx) error {
		if err := tx.UpdateNote(u, a.Version); err != nil {
			return err
		}
		if err := tx.DeleteNote(ns, b.ID); err != nil {
			return err
		}
		return tx.InsertNote(c)
	})
	if f := head(t, s, ns); f.Head != 2 {
		t.Fatalf("head %d after the second transaction, want 2", f.Head)
	}
	got = changes(t, s, ns, 1)
	byID := map[string]amem.Change{}
	for _, ch := range got {
		byID[ch.ID] = ch
	}
	if len(got) != 3 || byID[a.ID].Note.Content != u.Content || !byID[b.ID].Deleted || byID[c.ID].Note.Content != c.Content {
		t.Fatalf("changes after 1: %+v, want a updated, b deleted, c inserted, all at 2", got)
	}
	for _, ch := range got {
		if ch.Seq != 2 {
			t.Errorf("change of %s at %d, want 2", ch.ID, ch.Seq)
		}
	}
	if got := changes(t, s, ns, 2); len(got) != 0 {
		t.Errorf("changes after the head: %+v", got)
	}
	// From the start, a note changed twice appears once, at its latest.
	for _, ch := range changes(t, s, ns, 0) {
		if ch.ID == a.ID && ch.Seq != 2 {
			t.Errorf("note a appears at %d, want only at 2", ch.Seq)
		}
	}
	// Links, versions, usage and claims are not note changes.
	update(t, s, func(tx amem.Tx) error {
		if err := tx.PutLink(ns, amem.Link{Source: c.ID, Target: a.ID, Strength: 0.5, CreatedAt: base}); err != nil {
			return err
		}
		if err := tx.AddVersion(version(u, 2)); err != nil {
			return err
		}
		return tx.Claim(ns, a.ID, "someone", base, base.Add(time.Minute))
	})
	if f := head(t, s, ns); f.Head != 2 {
		t.Errorf("links, versions and claims moved the head to %d", f.Head)
	}
}

func testFeedCompaction(t *testing.T, s amem.Store) {
	ns := newNS("compact")
	old, recent, kept := newNote(ns, "old"), newNote(ns, "recent"), newNote(ns, "kept")
	insert(t, s, old, recent, kept)
	update(t, s, func(tx amem.Tx) error { return tx.DeleteNote(ns, old.ID) })
	oldHead := head(t, s, ns).Head
	cut := time.Now()
	time.Sleep(5 * time.Millisecond)
	update(t, s, func(tx amem.Tx) error { return tx.DeleteNote(ns, recent.ID) })

	var n int
	update(t, s, func(tx amem.Tx) error {
		var err error
		n, err = tx.CompactFeed(ns, cut)
		return err
	})
	if n != 1 {
		t.Fatalf("CompactFeed dropped %d tombstones, want 1 (the one before the cut)", n)
	}
	f := head(t, s, ns)
	if f.Horizon != oldHead {
		t.Fatalf("horizon %d, want %d (the dropped tombstone's number)", f.Horizon, oldHead)
	}
	// A follower at the horizon still sees the later deletion.
	var deleted []string
	for _, ch := range changes(t, s, ns, f.Horizon) {
		if ch.Deleted {
			deleted = append(deleted, ch.ID)
		}
	}
	if !slices.Equal(deleted, []string{recent.ID}) {
		t.Errorf("tombstones after the horizon: %v, want [%s]", deleted, recent.ID)
	}
	// Compacting again drops nothing and keeps the horizon.
	update(t, s, func(tx amem.Tx) error {
		var err error
		n, err = tx.CompactFeed(ns, cut)
		return err
	})
	if n != 0 || head(t, s, ns).Horizon != oldHead {
		t.Errorf("second compaction dropped %d, horizon %d", n, head(t, s, ns).Horizon)
	}
}

// testFeedConcurrent has writers insert, update and delete while a
// follower catches up over and over, as an index does: the follower must
// end with exactly the notes the store holds, never having seen a number
// out of order or a change it had already passed.
func testFeedConcurrent(t *testing.T, s amem.Store) {
	feedUnderWriters(t, []amem.Store{s}, s, feedLoad{writers: 4, rounds: 25})
}

// FeedAcrossStores is FeedConcurrent for a store that several processes
// share: writers on each of stores (one pool each, as separate instances
// would have) insert, update and delete notes of one namespace, holding
// each transaction open a random while after its write, so that
// transactions which took their numbers in one order try to commit in
// another. A follower reading through reader must end with exactly the
// notes stored, never having seen a number out of order.
func FeedAcrossStores(t *testing.T, stores []amem.Store, reader amem.Store) {
	feedUnderWriters(t, stores, reader, feedLoad{writers: 4, rounds: 20, hold: 3 * time.Millisecond})
}

// feedLoad is the work of feedUnderWriters.
type feedLoad struct {
	writers, rounds int           // writers per store, transactions each
	hold            time.Duration // a transaction stays open up to this after its write
}

func feedUnderWriters(t *testing.T, stores []amem.Store, reader amem.Store, load feedLoad) {
	ns := newNS("feed-race")
	var wg sync.WaitGroup
	errs := make(chan error, len(stores)*load.writers+1)
	for si, s := range stores {
		for w := range load.writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(si*load.writers+w), 7))
				var mine []amem.Note
				for i := range load.rounds {
					var next []amem.Note // mine once committed
					err := s.Update(t.Context(), func(tx amem.Tx) error {
						next = slices.Clone(mine)
						switch op := rng.IntN(3); {
						case op == 0 || len(next) == 0:
							n := newNote(ns, fmt.Sprintf("store %d writer %d round %d", si, w, i))
							if err := tx.InsertNote(n); err != nil {
								return err
							}
							next = append(next, n)
						case op == 1:
							j := rng.IntN(len(next))
							u := next[j]
							u.Content += " (edited)"
							u.Version++
							if err := tx.UpdateNote(u, next[j].Version); err != nil {
								return err
							}
							next[j] = u
						default:
							j := rng.IntN(len(next))
							if err := tx.DeleteNote(ns, next[j].ID); err != nil {
								return err
							}
							next = slices.Delete(next, j, j+1)
						}
						if load.hold > 0 {
							time.Sleep(time.Duration(rng.Int64N(int64(load.hold))))
						}
						return nil
					})
					if err != nil {
						errs <- err
						return
					}
					mine = next
				}
			}()
		}
	}
	f := &follower{live: map[string]int64{}}
	finished := stop(&wg)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if err := f.catchUp(t, reader, ns); err != nil {
				errs <- err
				return
			}
			select {
			case <-finished:
				return
			default:
			}
		}
	}()
	wg.Wait()
	<-done
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := f.catchUp(t, reader, ns); err != nil {
		t.Fatal(err)
	}
	var stored []string
	view(t, reader, func(tx amem.Tx) error {
		list, err := tx.ListNotes(ns, amem.ListQuery{Limit: 10000})
		stored = noteIDs(list)
		return err
	})
	if got := sorted(slices.Collect(maps.Keys(f.live))); !slices.Equal(got, sorted(stored)) {
		t.Fatalf("follower holds %d notes, the store %d:\n%v\n%v", len(got), len(stored), got, stored)
	}
	// Every transaction wrote once, so took one number.
	if want := int64(len(stores) * load.writers * load.rounds); f.seq != want {
		t.Errorf("head %d after %d transactions", f.seq, want)
	}
}

// stop returns a channel closed once wg's goroutines are done.
func stop(wg *sync.WaitGroup) <-chan struct{} {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	return ch
}

func testUpdateNoteCAS(t *testing.T, s amem.Store) {
	ns := newNS("cas")
	n := newNote(ns, "original")
	insert(t, s, n)
	u := n
	u.Content, u.Version = "first writer", 2
	update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u, 1) })

	// A second writer that read version 1 loses, and changes nothing.
	lost := n
	lost.Content, lost.Version = "second writer", 2
	err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.UpdateNote(lost, 1) })
	if !errors.Is(err, amem.ErrConflict) {
		t.Fatalf("UpdateNote at a stale version: %v, want amem.ErrConflict", err)
	}
	if got := getNote(t, s, ns, n.ID); got.Content != u.Content || got.Version != 2 {
		t.Fatalf("after the lost write: %q version %d", got.Content, got.Version)
	}
	// The conflict leaves the transaction usable, like ErrNotFound.
	update(t, s, func(tx amem.Tx) error {
		if err := tx.UpdateNote(lost, 1); !errors.Is(err, amem.ErrConflict) {
			return fmt.Errorf("stale write in a transaction: %v", err)
		}
		w := u
		w.Content, w.Version = "third writer", 3
		return tx.UpdateNote(w, 2)
	})
	if got := getNote(t, s, ns, n.ID); got.Content != "third writer" || got.Version != 3 {
		t.Fatalf("after a write that followed a conflict: %q version %d", got.Content, got.Version)
	}
}

func testClaims(t *testing.T, s amem.Store) {
	ns := newNS("claims")
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	due := func(n amem.Note, at time.Time) amem.Note {
		n.Enrichment = amem.Enrichment{State: amem.EnrichPending, DueAt: at}
		return n
	}
	early := due(newNote(ns, "due first"), t0.Add(-2*time.Minute))
	late := due(newNote(ns, "due second"), t0.Add(-time.Minute))
	future := due(newNote(ns, "not due yet"), t0.Add(time.Hour))
	done := newNote(ns, "done")
	done.Enrichment = amem.Enrichment{State: amem.EnrichDone, At: base}
	insert(t, s, late, future, early, done)
	if got := getNote(t, s, ns, early.ID); !got.Enrichment.DueAt.Equal(early.Enrichment.DueAt) {
		t.Fatalf("due time %v, want %v", got.Enrichment.DueAt, early.Enrichment.DueAt)
	}

	claimDue := func(owner string, now time.Time, limit int) []string {
		t.Helper()
		var refs []amem.NoteRef
		update(t, s, func(tx amem.Tx) error {
			var err error
			refs, err = tx.ClaimDue(owner, now, now.Add(time.Minute), limit)
			return err
		})
		var ids []string
		for _, r := range refs {
			if r.Namespace != ns {
				continue // another test's notes in a shared database
			}
			ids = append(ids, r.ID)
		}
		return ids
	}
	if got := claimDue("w1", t0, 1); !slices.Equal(got, []string{early.ID}) {
		t.Fatalf("first claim: %v, want the note due first", got)
	}
	if got := claimDue("w2", t0, 10); !slices.Equal(got, []string{late.ID}) {
		t.Fatalf("second claim: %v, want only the other due note (one is claimed, one not due, one done)", got)
	}
	if got := claimDue("w3", t0, 10); len(got) != 0 {
		t.Fatalf("third claim: %v, want none", got)
	}
	// Another owner can't take a live claim; the holder can renew it.
	err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.Claim(ns, early.ID, "w2", t0, t0.Add(time.Minute)) })
	if !errors.Is(err, amem.ErrBusy) {
		t.Fatalf("Claim of a claimed note: %v, want amem.ErrBusy", err)
	}
	update(t, s, func(tx amem.Tx) error { return tx.RenewClaim(ns, early.ID, "w1", t0.Add(2*time.Minute)) })
	if err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.RenewClaim(ns, early.ID, "w2", t0.Add(time.Hour)) }); !errors.Is(err, amem.ErrConflict) {
		t.Fatalf("RenewClaim by a non-holder: %v, want amem.ErrConflict", err)
	}
	// After the lease, anyone may take it over; the old holder then can't
	// release or renew it.
	later := t0.Add(3 * time.Minute)
	if got := claimDue("w4", later, 10); !slices.Contains(got, early.ID) {
		t.Fatalf("after the lease ran out: %v, want %s taken over", got, early.ID)
	}
	if err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.ReleaseClaim(ns, early.ID, "w1") }); !errors.Is(err, amem.ErrConflict) {
		t.Fatalf("ReleaseClaim by the old holder: %v, want amem.ErrConflict", err)
	}
	update(t, s, func(tx amem.Tx) error { return tx.ReleaseClaim(ns, early.ID, "w4") })
	// Released: claimable at once.
	update(t, s, func(tx amem.Tx) error { return tx.Claim(ns, early.ID, "w5", t0, t0.Add(time.Minute)) })
	// A claim survives UpdateNote (an enrichment's own writes).
	u := getNote(t, s, ns, early.ID)
	u.Context = "constructed"
	u.Version++
	update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u, u.Version-1) })
	if err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.Claim(ns, early.ID, "w6", t0, t0.Add(time.Minute)) }); !errors.Is(err, amem.ErrBusy) {
		t.Fatalf("claim after UpdateNote: %v, want still held (amem.ErrBusy)", err)
	}
	// A done note (no due time) is never claimed by ClaimDue; a missing
	// note is amem.ErrNotFound.
	if got := claimDue("w7", t0.Add(24*time.Hour), 100); slices.Contains(got, done.ID) {
		t.Fatalf("ClaimDue took a done note")
	}
	err = s.Update(t.Context(), func(tx amem.Tx) error { return tx.Claim(ns, newID(), "w8", t0, t0.Add(time.Minute)) })
	wantNotFound(t, "Claim of a missing note", err)
	err = s.Update(t.Context(), func(tx amem.Tx) error { return tx.ReleaseClaim(ns, newID(), "w8") })
	wantNotFound(t, "ReleaseClaim of a missing note", err)
}

// testClaimsConcurrent: workers racing for the same due notes each get
// distinct ones.
func testClaimsConcurrent(t *testing.T, s amem.Store) {
	ns := newNS("claim-race")
	now := time.Now().UTC()
	var notes []amem.Note
	for i := range 40 {
		n := newNote(ns, fmt.Sprintf("queued %d", i))
		n.Enrichment = amem.Enrichment{State: amem.EnrichPending, DueAt: now.Add(-time.Duration(i) * time.Millisecond)}
		notes = append(notes, n)
	}
	insert(t, s, notes...)
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("worker-%d", w)
			for {
				var refs []amem.NoteRef
				err := s.Update(t.Context(), func(tx amem.Tx) error {
					var err error
					refs, err = tx.ClaimDue(owner, now, now.Add(time.Hour), 3)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
				mine := 0
				mu.Lock()
				for _, r := range refs {
					if r.Namespace != ns {
						continue
					}
					mine++
					if prev, ok := seen[r.ID]; ok {
						errs <- fmt.Errorf("note %s claimed by %s and %s", r.ID, prev, owner)
					}
					seen[r.ID] = owner
				}
				mu.Unlock()
				if len(refs) == 0 || mine == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != len(notes) {
		t.Fatalf("%d of %d due notes claimed", len(seen), len(notes))
	}
}
