package sqlstore

import (
	"cmp"
	"slices"
	"strings"

	"github.com/amem-dev/amem"
)

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
