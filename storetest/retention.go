package storetest

import (
	"maps"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

func retainer(t *testing.T, tx amem.Tx) amem.Retainer {
	t.Helper()
	r, ok := tx.(amem.Retainer)
	if !ok {
		t.Fatalf("%T does not implement amem.Retainer", tx)
	}
	return r
}

// A namespace's policy comes back as written, for a namespace with or
// without notes, from its own namespace only; a zero policy removes it;
// Retentions lists the namespaces with one. CountBefore counts the notes
// dated before a time and the undated ones, of one namespace.
func testRetention(t *testing.T, s amem.Store) {
	ns, other, empty := newNS("ret"), newNS("ret-other"), newNS("ret-empty")
	day := 24 * time.Hour
	p := amem.Retention{MaxAge: 90*day + time.Nanosecond, MaxNotes: 1_000_000}
	q := amem.Retention{MaxNotes: 3}
	notes := []amem.Note{newNote(ns, "a"), newNote(ns, "b"), newNote(ns, "c"), newNote(ns, "undated"), newNote(other, "d")}
	notes[1].EventTime = base.Add(day)
	notes[2].EventTime = base.Add(2 * day)
	notes[3].EventTime = time.Time{}
	update(t, s, func(tx amem.Tx) error {
		for _, n := range notes {
			if err := tx.InsertNote(n); err != nil {
				return err
			}
		}
		r := retainer(t, tx)
		if err := r.PutRetention(ns, amem.Retention{MaxAge: time.Hour}); err != nil {
			return err
		}
		if err := r.PutRetention(ns, p); err != nil { // replaces
			return err
		}
		if err := r.PutRetention(empty, q); err != nil {
			return err
		}
		return r.PutRetention(other, q)
	})
	update(t, s, func(tx amem.Tx) error {
		return retainer(t, tx).PutRetention(other, amem.Retention{}) // removes
	})
	view(t, s, func(tx amem.Tx) error {
		r := retainer(t, tx)
		for name, want := range map[string]amem.Retention{ns: p, empty: q, other: {}, newNS("ret-none"): {}} {
			got, err := r.Retention(name)
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("Retention(%s) = %+v, want %+v", name, got, want)
			}
		}
		all, err := r.Retentions()
		if err != nil {
			return err
		}
		// Other tests' namespaces may share the database.
		got := map[string]amem.Retention{}
		for _, name := range []string{ns, other, empty} {
			if v, ok := all[name]; ok {
				got[name] = v
			}
		}
		if want := map[string]amem.Retention{ns: p, empty: q}; !maps.Equal(got, want) {
			t.Errorf("Retentions = %v, want %v", got, want)
		}
		for _, c := range []struct {
			ns   string
			at   time.Time
			want int
		}{
			{ns, base, 1}, // the undated note only: before is strict
			{ns, base.Add(time.Nanosecond), 2},
			{ns, base.Add(2 * day), 3},
			{ns, base.Add(3 * day), 4},
			{other, base.Add(3 * day), 1},
			{empty, base.Add(3 * day), 0},
		} {
			n, err := r.CountBefore(c.ns, c.at)
			if err != nil {
				return err
			}
			if n != c.want {
				t.Errorf("CountBefore(%s, %s) = %d, want %d", c.ns, c.at, n, c.want)
			}
		}
		return nil
	})
}
