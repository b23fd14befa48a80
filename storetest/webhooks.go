package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/webhook"
)

// webhookStore returns s as a webhook.Store: the suite holds a store to
// keeping the outbox that amem.EventRecorder writes.
func webhookStore(t *testing.T, s amem.Store) webhook.Store {
	t.Helper()
	ws, ok := s.(webhook.Store)
	if !ok {
		t.Fatalf("%T does not implement webhook.Store", s)
	}
	return ws
}

func recordEvents(t *testing.T, s amem.Store, es ...amem.Event) {
	t.Helper()
	update(t, s, func(tx amem.Tx) error {
		for _, e := range es {
			if err := eventRecorder(t, tx).RecordEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// claimEvents claims for owner at now and returns the deliveries, by
// their labels ("hook kind note vVersion aAttempts"), and the labels
// sorted. The deliveries must come oldest first.
func claimEvents(t *testing.T, ws webhook.Store, owner string, now time.Time) (map[string]webhook.Delivery, []string) {
	t.Helper()
	ds, err := ws.ClaimEvents(context.Background(), owner, now, now.Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(ds, func(a, b webhook.Delivery) int { return int(a.ID - b.ID) }) {
		t.Errorf("claimed events not oldest first: %+v", ds)
	}
	byLabel := map[string]webhook.Delivery{}
	var got []string
	for _, d := range ds {
		l := fmt.Sprintf("%s %s %s v%d a%d", d.Hook.ID, d.Kind, d.NoteID, d.Version, d.Attempts)
		byLabel[l] = d
		got = append(got, l)
	}
	slices.Sort(got)
	return byLabel, got
}

func testWebhookOutbox(t *testing.T, s amem.Store) {
	ws := webhookStore(t, s)
	ctx := context.Background()
	ns, other := newNS("hooks"), newNS("hooks-other")
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	all := webhook.Hook{ID: "wh_all_" + newID(), Namespace: ns, URL: "http://127.0.0.1:1/all",
		Secret: "secret-of-all-0123", Kinds: []amem.EventKind{}, CreatedAt: base}
	deletes := webhook.Hook{ID: "wh_del_" + newID(), Namespace: ns, URL: "https://example.com/del",
		Secret: "secret-of-deletes", Kinds: []amem.EventKind{amem.EventDeleted, amem.EventCreated}, CreatedAt: base.Add(time.Second)}
	for _, h := range []webhook.Hook{all, deletes} {
		if err := ws.CreateWebhook(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if err := ws.CreateWebhook(ctx, all); !errors.Is(err, amem.ErrConflict) {
		t.Fatalf("a webhook created twice: %v, want ErrConflict", err)
	}

	// The other namespace has no webhook: its events are not kept. A
	// rolled-back event is not kept either.
	recordEvents(t, s, amem.Event{Namespace: other, NoteID: "N0", Version: 1, Kind: amem.EventCreated, At: t0})
	errRollback := errors.New("roll back")
	err := s.Update(ctx, func(tx amem.Tx) error {
		if err := eventRecorder(t, tx).RecordEvent(amem.Event{Namespace: ns, NoteID: "N9", Version: 1, Kind: amem.EventCreated, At: t0}); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx amem.Tx) error {
		return eventRecorder(t, tx).RecordEvent(amem.Event{Namespace: ns, NoteID: "N9", Version: 1, Kind: "renamed", At: t0})
	})
	if !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("an unknown kind: %v, want ErrInvalid", err)
	}
	recordEvents(t, s,
		amem.Event{Namespace: ns, NoteID: "N1", Version: 1, Kind: amem.EventCreated, At: t0},
		amem.Event{Namespace: ns, NoteID: "N1", Version: 2, Kind: amem.EventEnriched, At: t0},
		amem.Event{Namespace: ns, NoteID: "N2", Version: 1, Kind: amem.EventEvolved, At: t0},
	)
	recordEvents(t, s, amem.Event{Namespace: ns, NoteID: "N1", Version: 2, Kind: amem.EventDeleted, At: t0})

	// A note's later events wait behind its first; different notes' and
	// different webhooks' don't.
	ds, got := claimEvents(t, ws, "w1", t0)
	allCreated, delCreated, evolved := all.ID+" created N1 v1 a0", deletes.ID+" created N1 v1 a0", all.ID+" evolved N2 v1 a0"
	if want := sorted([]string{allCreated, delCreated, evolved}); !slices.Equal(got, want) {
		t.Fatalf("claimed %q, want %q", got, want)
	}
	if d := ds[allCreated]; d.Hook.URL != all.URL || d.Hook.Secret != all.Secret || d.Hook.Namespace != ns ||
		d.Namespace != ns || !d.At.Equal(t0) || d.At.Location() != time.UTC || d.ID <= 0 {
		t.Fatalf("delivery %+v, want webhook %+v's, at %v", d, all, t0)
	}
	if _, got := claimEvents(t, ws, "w2", t0); len(got) != 0 {
		t.Fatalf("events leased by w1 were claimed again: %q", got)
	}

	// A failed attempt: the webhook records why; the note's next event
	// still waits behind it.
	if err := finishRetry(ws, ctx, ds[allCreated].ID, "w1", 1, t0.Add(time.Hour), "answered 500", t0); err != nil {
		t.Fatal(err)
	}
	if err := finishRetry(ws, ctx, ds[delCreated].ID, "w1", 0, t0, "", t0); err != nil { // given back untried
		t.Fatal(err)
	}
	if err := finishRetry(ws, ctx, ds[evolved].ID, "w2", 3, t0, "not the holder", t0); err != nil {
		t.Fatal(err)
	}
	st := statuses(t, ws, ns)
	if len(st) != 2 || st[0].ID != all.ID || st[1].ID != deletes.ID {
		t.Fatalf("webhooks %+v, want %s then %s", st, all.ID, deletes.ID)
	}
	if a := st[0]; a.Pending != 4 || a.Failed != 0 || a.LastError != "answered 500" || !a.LastErrorAt.Equal(t0) ||
		a.URL != all.URL || !a.CreatedAt.Equal(base) || len(a.Kinds) != 0 || a.Kinds == nil {
		t.Fatalf("webhook status %+v", a)
	}
	if d := st[1]; !slices.Equal(d.Kinds, deletes.Kinds) || d.Pending != 2 || d.LastError != "" {
		t.Fatalf("webhook status %+v", d)
	}
	// The evolved event is still w1's: w2's Retry changed nothing.
	ds1, got := claimEvents(t, ws, "w2", t0)
	if !slices.Equal(got, []string{delCreated}) {
		t.Fatalf("claimed %q, want the event given back", got)
	}
	if err := finishDelivered(ws, ctx, ds1[delCreated].ID, "w2", t0); err != nil {
		t.Fatal(err)
	}

	// The lease of w1's evolved N2 ends: another worker takes it, and w1's
	// late outcome is ignored.
	later := t0.Add(2 * time.Minute)
	delDeleted := deletes.ID + " deleted N1 v2 a0"
	ds2, got := claimEvents(t, ws, "w3", later)
	if want := sorted([]string{evolved, delDeleted}); !slices.Equal(got, want) {
		t.Fatalf("after the lease: claimed %q, want %q", got, want)
	}
	if err := finishDelivered(ws, ctx, ds[evolved].ID, "w1", later); err != nil {
		t.Fatal(err)
	}
	if statuses(t, ws, ns)[0].Delivered != 0 {
		t.Fatal("a delivery by a worker that lost its lease was counted")
	}
	// Delivered by its holder: gone, counted, and the webhook's event
	// waiting an hour for a retry is due at once.
	for _, d := range ds2 {
		if err := finishDelivered(ws, ctx, d.ID, "w3", later); err != nil {
			t.Fatal(err)
		}
	}
	if a := statuses(t, ws, ns)[0]; a.Delivered != 1 || !a.LastDeliveredAt.Equal(later) || a.Pending != 3 {
		t.Fatalf("after a delivery: %+v", a)
	}
	ds3, got := claimEvents(t, ws, "w3", later)
	allRetry := all.ID + " created N1 v1 a1"
	if !slices.Equal(got, []string{allRetry}) {
		t.Fatalf("after a delivery: claimed %q, want the retry hurried", got)
	}
	// Given up: kept as failed, never claimed, and no longer holding the
	// note's later events back.
	if err := finishRetry(ws, ctx, ds3[allRetry].ID, "w3", 9, time.Time{}, "timeout", later); err != nil {
		t.Fatal(err)
	}
	if a := statuses(t, ws, ns)[0]; a.Failed != 1 || a.Pending != 2 || a.LastError != "timeout" {
		t.Fatalf("after giving up: %+v", a)
	}
	if _, got := claimEvents(t, ws, "w4", later.Add(time.Hour)); !slices.Equal(got, []string{all.ID + " enriched N1 v2 a0"}) {
		t.Fatalf("after giving up: claimed %q", got)
	}

	// Deleting a webhook takes its events; another namespace's ID is not
	// found.
	if err := ws.DeleteWebhook(ctx, other, all.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("delete from another namespace: %v, want ErrNotFound", err)
	}
	if err := ws.DeleteWebhook(ctx, ns, all.ID); err != nil {
		t.Fatal(err)
	}
	if st := statuses(t, ws, ns); len(st) != 1 || st[0].ID != deletes.ID {
		t.Fatalf("after delete: %+v", st)
	}
	if _, got := claimEvents(t, ws, "w5", later.Add(2*time.Hour)); len(got) != 0 {
		t.Fatalf("after delete: claimed %q", got)
	}
	if st := statuses(t, ws, other); len(st) != 0 {
		t.Fatalf("namespace without webhooks lists %+v", st)
	}
}

// testWebhookEventIDs checks that event IDs only grow: receivers
// deduplicate by them, so one reused after a delivery would be dropped.
func testWebhookEventIDs(t *testing.T, s amem.Store) {
	ws := webhookStore(t, s)
	ctx := context.Background()
	ns := newNS("hook-ids")
	h := webhook.Hook{ID: "wh_" + newID(), Namespace: ns, URL: "http://127.0.0.1:1/", Secret: "0123456789abcdef",
		Kinds: []amem.EventKind{}, CreatedAt: base}
	if err := ws.CreateWebhook(ctx, h); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC()
	var last int64
	for i := range 3 {
		recordEvents(t, s, amem.Event{Namespace: ns, NoteID: "N", Version: i + 1, Kind: amem.EventUpdated, At: t0})
		ds, got := claimEvents(t, ws, "w", t0)
		d := ds[fmt.Sprintf("%s updated N v%d a0", h.ID, i+1)]
		if len(got) != 1 || d.ID <= last {
			t.Fatalf("round %d: claimed %q (ID %d) after ID %d", i, got, d.ID, last)
		}
		last = d.ID
		if err := finishDelivered(ws, ctx, d.ID, "w", t0); err != nil {
			t.Fatal(err)
		}
	}
}

func statuses(t *testing.T, ws webhook.Store, ns string) []webhook.Status {
	t.Helper()
	st, err := ws.Webhooks(context.Background(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// testWebhookClaimsConcurrent: workers claiming at once (several
// connections, as several servers on one database would) never hold the
// same event together, and together deliver every one.
func testWebhookClaimsConcurrent(t *testing.T, s amem.Store) {
	ws := webhookStore(t, s)
	ctx := context.Background()
	ns := newNS("hook-claims")
	h := webhook.Hook{ID: "wh_" + newID(), Namespace: ns, URL: "http://127.0.0.1:1/", Secret: "0123456789abcdef",
		Kinds: []amem.EventKind{}, CreatedAt: base}
	if err := ws.CreateWebhook(ctx, h); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC()
	const notes, perNote = 40, 3
	for i := range notes {
		var es []amem.Event
		for v := range perNote {
			es = append(es, amem.Event{Namespace: ns, NoteID: fmt.Sprintf("N%02d", i), Version: v + 1, Kind: amem.EventUpdated, At: t0})
		}
		recordEvents(t, s, es...)
	}
	var (
		mu        sync.Mutex
		delivered = map[int64]string{}
		versions  = map[string]int{} // last version delivered, by note
		wg        sync.WaitGroup
	)
	for w := range 4 {
		owner := fmt.Sprintf("w%d", w)
		wg.Go(func() {
			for idle := 0; idle < 3; {
				ds, err := ws.ClaimEvents(ctx, owner, t0, t0.Add(time.Hour), 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(ds) == 0 {
					idle++
					time.Sleep(time.Millisecond)
					continue
				}
				idle = 0
				for _, d := range ds {
					mu.Lock()
					if prev, ok := delivered[d.ID]; ok {
						t.Errorf("event %d claimed by %s and %s", d.ID, prev, owner)
					}
					delivered[d.ID] = owner
					if d.Version != versions[d.NoteID]+1 {
						t.Errorf("note %s: version %d delivered after %d", d.NoteID, d.Version, versions[d.NoteID])
					}
					versions[d.NoteID] = d.Version
					mu.Unlock()
					if err := finishDelivered(ws, ctx, d.ID, owner, t0); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if len(delivered) != notes*perNote {
		t.Fatalf("%d events delivered, want %d", len(delivered), notes*perNote)
	}
}

// finishDelivered and finishRetry finish one event, as a round of one would.
func finishDelivered(ws webhook.Store, ctx context.Context, id int64, owner string, at time.Time) error {
	return ws.Finish(ctx, owner, []webhook.Outcome{{ID: id, At: at, Delivered: true}})
}

func finishRetry(ws webhook.Store, ctx context.Context, id int64, owner string, attempts int, next time.Time, cause string, at time.Time) error {
	return ws.Finish(ctx, owner, []webhook.Outcome{{ID: id, At: at, Attempts: attempts, Next: next, Cause: cause}})
}

// Finish records a whole round in one call: an event delivered, one
// released with its cause, and one whose lease another owner holds,
// which is left to that owner.
func testWebhookFinishRound(t *testing.T, s amem.Store) {
	ws := webhookStore(t, s)
	ctx := context.Background()
	ns := newNS("finish")
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	h := webhook.Hook{ID: "wh_fin_" + newID(), Namespace: ns, URL: "https://example.com/fin",
		Secret: "secret-of-finish-0123", Kinds: []amem.EventKind{}, CreatedAt: base}
	if err := ws.CreateWebhook(ctx, h); err != nil {
		t.Fatal(err)
	}
	recordEvents(t, s,
		amem.Event{Namespace: ns, NoteID: "A", Version: 1, Kind: amem.EventCreated, At: t0},
		amem.Event{Namespace: ns, NoteID: "B", Version: 1, Kind: amem.EventCreated, At: t0},
		amem.Event{Namespace: ns, NoteID: "C", Version: 1, Kind: amem.EventCreated, At: t0})
	mine, err := ws.ClaimEvents(ctx, "w1", t0, t0.Add(time.Minute), 2)
	if err != nil || len(mine) != 2 {
		t.Fatalf("w1 claimed %d events, %v; want 2", len(mine), err)
	}
	theirs, err := ws.ClaimEvents(ctx, "w2", t0, t0.Add(time.Minute), 10)
	if err != nil || len(theirs) != 1 {
		t.Fatalf("w2 claimed %d events, %v; want 1", len(theirs), err)
	}
	status := func() webhook.Status {
		t.Helper()
		hs, err := ws.Webhooks(ctx, ns)
		if err != nil || len(hs) != 1 {
			t.Fatalf("webhooks: %v, %v", hs, err)
		}
		return hs[0]
	}
	err = ws.Finish(ctx, "w1", []webhook.Outcome{
		{ID: mine[0].ID, At: t0, Delivered: true},
		{ID: mine[1].ID, At: t0, Attempts: 1, Next: t0.Add(time.Hour), Cause: "answered 500 Internal Server Error"},
		{ID: theirs[0].ID, At: t0, Delivered: true}, // w2's
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := status(); st.Delivered != 1 || st.Pending != 2 || st.LastError != "answered 500 Internal Server Error" {
		t.Fatalf("after w1's round: %+v; want 1 delivered, 2 pending, the cause", st)
	}
	if err := ws.Finish(ctx, "w2", []webhook.Outcome{{ID: theirs[0].ID, At: t0, Delivered: true}}); err != nil {
		t.Fatal(err)
	}
	if st := status(); st.Delivered != 2 || st.Pending != 1 {
		t.Fatalf("after w2's round: %+v; want 2 delivered, 1 pending", st)
	}
	if err := ws.Finish(ctx, "w1", nil); err != nil {
		t.Fatalf("an empty round: %v", err)
	}
}
