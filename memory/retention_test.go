package memory_test

import (
	"context"
	"errors"
	"fmt"
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

// retentionClock is a settable clock.
type retentionClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *retentionClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *retentionClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

const day = 24 * time.Hour

// addDaysAgo adds one note per age, dated that many days before now,
// and returns them in the order given.
func addDaysAgo(t *testing.T, mem *memory.Memory, ns string, now time.Time, days ...int) []amem.Note {
	t.Helper()
	var reqs []amem.AddRequest
	for _, d := range days {
		reqs = append(reqs, amem.AddRequest{Namespace: ns, Content: fmt.Sprintf("a note from %d days ago", d), EventTime: now.Add(-time.Duration(d) * day)})
	}
	notes, err := mem.AddBatch(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

func liveIDs(t *testing.T, mem *memory.Memory, ns string) []string {
	t.Helper()
	ns1, err := mem.List(context.Background(), ns, amem.ListQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range ns1 {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	return ids
}

func idsOf(notes ...amem.Note) []string {
	var ids []string
	for _, n := range notes {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	return ids
}

// A policy is kept per namespace, refused when invalid, and its sweep
// moves exactly the notes past it to the trash (max age by event time;
// max notes keeps the newest), oldest first, with a deleted event each;
// stats say beforehand what it will remove; a trashed note is restored.
func TestRetentionSweep(t *testing.T) {
	ctx := context.Background()
	clock := &retentionClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	st := storeWithWebhook(t, "ns", amem.EventDeleted)
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()

	for _, bad := range []amem.Retention{{MaxAge: -time.Hour}, {MaxAge: time.Minute}, {MaxNotes: -1}} {
		if err := mem.SetRetention(ctx, "ns", bad); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("SetRetention(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	if err := mem.SetRetention(ctx, "bad/ns", amem.Retention{MaxNotes: 1}); !errors.Is(err, amem.ErrInvalid) {
		t.Errorf("SetRetention of a bad namespace = %v, want ErrInvalid", err)
	}

	// Ages 9, 1, 30, 6, 3 days; another namespace's old note is never touched.
	notes := addDaysAgo(t, mem, "ns", clock.Now(), 9, 1, 30, 6, 3)
	other := addDaysAgo(t, mem, "other", clock.Now(), 400)
	if r, err := mem.Retention(ctx, "ns"); err != nil || !r.IsZero() {
		t.Fatalf("policy before any: %+v, %v", r, err)
	}
	policy := amem.Retention{MaxAge: 7 * day}
	if err := mem.SetRetention(ctx, "ns", policy); err != nil {
		t.Fatal(err)
	}
	if r, err := mem.Retention(ctx, "ns"); err != nil || r != policy {
		t.Fatalf("policy %+v, %v; want %+v", r, err, policy)
	}
	stats, err := mem.Stats(ctx, "ns")
	if err != nil || len(stats) != 1 {
		t.Fatalf("stats %+v, %v", stats, err)
	}
	want := amem.RetentionDue{Notes: 2, Oldest: amem.EventKey{Time: notes[2].EventTime, ID: notes[2].ID}}
	if stats[0].Retention != policy || stats[0].RetentionDue != want {
		t.Fatalf("stats retention %+v due %+v; want %+v, %+v", stats[0].Retention, stats[0].RetentionDue, policy, want)
	}
	n, err := mem.ApplyRetention(ctx, "", 0)
	if err != nil || n != 2 {
		t.Fatalf("apply: %d, %v; want 2 (30 and 9 days old)", n, err)
	}
	if got, want := liveIDs(t, mem, "ns"), idsOf(notes[1], notes[3], notes[4]); !slices.Equal(got, want) {
		t.Fatalf("left %v, want %v", got, want)
	}
	if got := liveIDs(t, mem, "other"); !slices.Equal(got, idsOf(other...)) {
		t.Fatalf("other namespace: %v", got)
	}
	trash, err := mem.Trash().List(ctx, "ns", amem.TrashQuery{})
	if err != nil || !slices.Equal(idsOf(trash[0].Note, trash[1].Note), idsOf(notes[0], notes[2])) {
		t.Fatalf("trash %+v, %v", trash, err)
	}
	if hs, err := st.Webhooks(ctx, "ns"); err != nil || hs[0].Pending != 2 {
		t.Fatalf("webhooks %+v, %v; want two deleted events", hs, err)
	}

	// A day later the 6-day-old note is 7 days and 0 s old: not past.
	clock.Add(day)
	if n, err := mem.ApplyRetention(ctx, "ns", 0); err != nil || n != 0 {
		t.Fatalf("apply at exactly the age: %d, %v", n, err)
	}
	clock.Add(time.Second)
	if n, err := mem.ApplyRetention(ctx, "ns", 0); err != nil || n != 1 {
		t.Fatalf("apply past the age: %d, %v", n, err)
	}

	// Max notes keeps the newest: of 1 and 3 days (now 2 and 4) and new ones.
	more := addDaysAgo(t, mem, "ns", clock.Now(), 0, 10, 5)
	if err := mem.SetRetention(ctx, "ns", amem.Retention{MaxNotes: 2}); err != nil {
		t.Fatal(err)
	}
	_, due, err := mem.RetentionDue(ctx, "ns")
	if err != nil || due.Notes != 3 || due.Oldest.ID != more[1].ID {
		t.Fatalf("due %+v, %v; want 3 from %s", due, err, more[1].ID)
	}
	if n, err := mem.ApplyRetention(ctx, "ns", 0); err != nil || n != 3 {
		t.Fatalf("apply max notes: %d, %v", n, err)
	}
	if got, want := liveIDs(t, mem, "ns"), idsOf(more[0], notes[1]); !slices.Equal(got, want) {
		t.Fatalf("kept %v, want the newest two %v", got, want)
	}

	// A mistaken policy is undone: off, then restore.
	if err := mem.SetRetention(ctx, "ns", amem.Retention{}); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Trash().Restore(ctx, "ns", more[2].ID); err != nil {
		t.Fatal(err)
	}
	if n, err := mem.ApplyRetention(ctx, "", 0); err != nil || n != 0 {
		t.Fatalf("apply without a policy: %d, %v", n, err)
	}
	if got := liveIDs(t, mem, "ns"); !slices.Contains(got, more[2].ID) || len(got) != 3 {
		t.Fatalf("after restore: %v", got)
	}
	if st, _ := mem.Stats(ctx, "ns"); st[0].RetentionDue.Notes != 0 || !st[0].Retention.IsZero() {
		t.Fatalf("stats without a policy: %+v", st[0])
	}
}

// A sweep moves at most limit notes a namespace, a hundred a
// transaction, oldest first; the next one goes on.
func TestRetentionLimit(t *testing.T) {
	ctx := context.Background()
	clock := &retentionClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	mem := openOpts(t, filepath.Join(t.TempDir(), "amem.db"), memory.Options{Embedder: lexical.New(nil), Now: clock.Now})
	defer mem.Close()
	var ages []int
	for i := range 260 {
		ages = append(ages, i)
	}
	notes := addDaysAgo(t, mem, "ns", clock.Now(), ages...)
	if err := mem.SetRetention(ctx, "ns", amem.Retention{MaxNotes: 10}); err != nil {
		t.Fatal(err)
	}
	if n, err := mem.ApplyRetention(ctx, "ns", 150); err != nil || n != 150 {
		t.Fatalf("first sweep: %d, %v", n, err)
	}
	live := liveIDs(t, mem, "ns")
	if len(live) != 110 || !slices.Contains(live, notes[109].ID) || slices.Contains(live, notes[110].ID) {
		t.Fatalf("after the first sweep: %d left, want the newest 110", len(live))
	}
	if n, err := mem.ApplyRetention(ctx, "ns", 150); err != nil || n != 100 {
		t.Fatalf("second sweep: %d, %v", n, err)
	}
	if got, want := liveIDs(t, mem, "ns"), idsOf(notes[:10]...); !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
}

// The workers apply every namespace's policy at each compaction pass.
func TestRetentionByWorkers(t *testing.T) {
	ctx := context.Background()
	clock := &retentionClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	mem := openOpts(t, filepath.Join(t.TempDir(), "amem.db"), memory.Options{Embedder: lexical.New(nil), Now: clock.Now})
	defer mem.Close()
	notes := addDaysAgo(t, mem, "ns", clock.Now(), 100, 2, 50)
	if err := mem.SetRetention(ctx, "ns", amem.Retention{MaxAge: 30 * day}); err != nil {
		t.Fatal(err)
	}
	stop := runWorkers(t, mem, memory.WorkerOptions{PollInterval: time.Hour, CompactInterval: 10 * time.Millisecond})
	defer stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := liveIDs(t, mem, "ns")
		if slices.Equal(got, idsOf(notes[1])) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers left %v, want only %s", got, notes[1].ID)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if l, err := mem.Trash().List(ctx, "ns", amem.TrashQuery{}); err != nil || len(l) != 2 {
		t.Fatalf("trash %d, %v", len(l), err)
	}
}

// Over a store without amem.Retainer, setting a policy is
// errors.ErrUnsupported, every namespace has none and nothing is removed.
func TestRetentionWithoutRetainer(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(ctx, requiredOnly{st}, &memory.Options{Embedder: lexical.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	mustAdd(t, mem, "ns", "kept")
	if err := mem.SetRetention(ctx, "ns", amem.Retention{MaxNotes: 1}); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("SetRetention: %v, want ErrUnsupported", err)
	}
	if r, err := mem.Retention(ctx, "ns"); err != nil || !r.IsZero() {
		t.Fatalf("Retention: %+v, %v", r, err)
	}
	if n, err := mem.ApplyRetention(ctx, "", 0); err != nil || n != 0 {
		t.Fatalf("ApplyRetention: %d, %v", n, err)
	}
	if s, err := mem.Stats(ctx, "ns"); err != nil || s[0].RetentionDue.Notes != 0 {
		t.Fatalf("Stats: %+v, %v", s, err)
	}
}

// Two memories on one store sweeping at once move each note once, and
// the other's search follows the feed: the notes moved are gone from it.
func TestRetentionTwoProcesses(t *testing.T) {
	ctx := context.Background()
	clock := &retentionClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	a, b := twoOnOneStore(t, memory.Options{Now: clock.Now})
	defer b.Close()
	var ages []int
	for i := range 250 {
		ages = append(ages, i)
	}
	notes := addDaysAgo(t, a, "ns", clock.Now(), ages...)
	if got := allModeIDs(t, b, "ns", "a note from 200 days ago"); !slices.Contains(got, notes[200].ID) {
		t.Fatalf("set-up: b does not find the note: %v", got)
	}
	if err := a.SetRetention(ctx, "ns", amem.Retention{MaxAge: 100 * day}); err != nil {
		t.Fatal(err)
	}
	moved := make([]int, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, m := range []*memory.Memory{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			moved[i], errs[i] = m.ApplyRetention(ctx, "", 0)
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || moved[0]+moved[1] != 149 {
		t.Fatalf("moved %v, errors %v; want 149 in all (older than 100 days)", moved, errs)
	}
	if got := liveIDs(t, b, "ns"); !slices.Equal(got, idsOf(notes[:101]...)) {
		t.Fatalf("%d notes left, want the 101 of 100 days or less", len(got))
	}
	if got := allModeIDs(t, b, "ns", "a note from 200 days ago"); slices.Contains(got, notes[200].ID) {
		t.Fatal("b's search finds a note retention moved to the trash")
	}
}
