package sqlstore

import (
	"fmt"
	"math"

	"github.com/amem-dev/amem"
)

// CheckLink is amem.ErrInvalid for a link PutLink refuses before it looks
// at the database: one without both ends, from a note to itself, or with
// a NaN or infinite strength.
func CheckLink(l amem.Link) error {
	switch {
	case l.Source == "" || l.Target == "":
		return fmt.Errorf("put link: %w: a link needs a source and a target", amem.ErrInvalid)
	case l.Source == l.Target:
		return fmt.Errorf("put link: %w: note %s links to itself", amem.ErrInvalid, l.Source)
	case math.IsNaN(l.Strength) || math.IsInf(l.Strength, 0):
		return fmt.Errorf("put link %s->%s: %w: strength %v", l.Source, l.Target, amem.ErrInvalid, l.Strength)
	}
	return nil
}

// Links gives the links read for a set of notes to the notes at both of
// their ends, in the order they are read.
type Links struct {
	notes []amem.Note
	at    map[string]int // index in notes by ID
}

// NewLinks indexes notes, which must be of one namespace, and returns
// their IDs, for the query of their links.
func NewLinks(notes []amem.Note) (*Links, []string) {
	at := make(map[string]int, len(notes))
	ids := make([]string, len(notes))
	for i, n := range notes {
		at[n.ID] = i
		ids[i] = n.ID
	}
	return &Links{notes: notes, at: at}, ids
}

// Add appends l to the links of its source and of its target, among the
// notes indexed.
func (x *Links) Add(l amem.Link) {
	if i, ok := x.at[l.Source]; ok {
		x.notes[i].Links = append(x.notes[i].Links, l)
	}
	if i, ok := x.at[l.Target]; ok && l.Target != l.Source {
		x.notes[i].Links = append(x.notes[i].Links, l)
	}
}
