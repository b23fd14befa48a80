package storetest

import (
	"testing"

	"github.com/amem-dev/amem"
)

// testCallerAttributes checks that the marks of what the caller wrote
// (Note.CallerKeywords, Note.CallerContext) are kept through insert and
// update, each on its own, and read back the same by every read.
func testCallerAttributes(t *testing.T, s amem.Store) {
	ns := newNS("caller")
	for _, tc := range []struct {
		name              string
		keywords, context bool
	}{
		{"none", false, false},
		{"keywords", true, false},
		{"context", false, true},
		{"both", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newNote(ns, tc.name)
			n.Keywords, n.Context = []string{"mine"}, "my own context"
			n.CallerKeywords, n.CallerContext = tc.keywords, tc.context
			insert(t, s, n)
			check := func(when string, want amem.Note) {
				t.Helper()
				got := getNote(t, s, ns, n.ID)
				if got.CallerKeywords != want.CallerKeywords || got.CallerContext != want.CallerContext {
					t.Errorf("%s: Note: caller keywords %v, context %v; want %v, %v", when,
						got.CallerKeywords, got.CallerContext, want.CallerKeywords, want.CallerContext)
				}
				view(t, s, func(tx amem.Tx) error {
					ns, err := tx.Notes(ns, []string{n.ID})
					if err != nil {
						return err
					}
					if len(ns) != 1 || ns[0].CallerKeywords != want.CallerKeywords || ns[0].CallerContext != want.CallerContext {
						t.Errorf("%s: Notes gives %+v", when, ns)
					}
					return nil
				})
			}
			check("after insert", n)

			// Each mark flips alone, so that a store mixing them up fails.
			u := getNote(t, s, ns, n.ID)
			u.CallerKeywords = !u.CallerKeywords
			u.Version++
			update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u, u.Version-1) })
			check("after flipping keywords", u)
			u2 := u
			u2.CallerContext = !u2.CallerContext
			u2.Version++
			update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u2, u.Version) })
			check("after flipping context", u2)
		})
	}
}
