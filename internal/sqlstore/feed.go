package sqlstore

import (
	"cmp"
	"slices"
	"strings"

	"github.com/amem-dev/amem"
)

// Merge hands Tx.Changes' callback the changed notes and the tombstones
// of a namespace in number order. Both stores read the tombstones first
// (there are few) and then stream the notes, so Merge holds the
// tombstones and lets out those due before each note.
type Merge struct {
	dead []amem.Change // tombstones not yet handed on, in number order
	fn   func(amem.Change) error
}

// NewMerge returns a Merge of the tombstones dead, in number order, into
// the changes given to Note, handing each to fn.
func NewMerge(dead []amem.Change, fn func(amem.Change) error) *Merge {
	return &Merge{dead: dead, fn: fn}
}

// Note hands on the tombstones numbered up to seq, then the note changed
// at seq. An error from fn is returned as is.
func (m *Merge) Note(seq int64, n amem.Note) error {
	for len(m.dead) > 0 && m.dead[0].Seq <= seq {
		if err := m.fn(m.dead[0]); err != nil {
			return err
		}
		m.dead = m.dead[1:]
	}
	return m.fn(amem.Change{Seq: seq, ID: n.ID, Note: n})
}

// Rest hands on the tombstones after the last note.
func (m *Merge) Rest() error {
	for _, d := range m.dead {
		if err := m.fn(d); err != nil {
			return err
		}
	}
	m.dead = nil
	return nil
}

// Due is a note claimed by ClaimDue with the time it fell due.
type Due struct {
	Ref amem.NoteRef
	At  int64 // unix nanoseconds
}

// DueOrder returns the claimed notes oldest due first, then by ID: the
// order ClaimDue promises, which neither store's UPDATE ... RETURNING
// does.
func DueOrder(got []Due) []amem.NoteRef {
	slices.SortFunc(got, func(a, b Due) int {
		return cmp.Or(cmp.Compare(a.At, b.At), strings.Compare(a.Ref.ID, b.Ref.ID))
	})
	out := make([]amem.NoteRef, len(got))
	for i, d := range got {
		out[i] = d.Ref
	}
	return out
}
