package transfer

import (
	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/invalid"
)

// invalidf is amem.ErrInvalid with the reason.
func invalidf(format string, args ...any) error { return invalid.Errorf(format, args...) }

func validID(id string) error {
	if !amem.ValidID(id) {
		return invalidf("%q is not a note ID (26 characters, Crockford base32)", id)
	}
	return nil
}

// checkValidity is Import's check of an exported note's validity and its
// links' kinds.
func checkValidity(n amem.Note) error {
	if n.SupersededBy != "" && (validID(n.SupersededBy) != nil || n.SupersededBy == n.ID) {
		return invalidf("note %s is superseded by %q, which can't supersede it", n.ID, n.SupersededBy)
	}
	if !n.ValidUntil.IsZero() {
		if err := amem.ValidEventTime(n.ValidUntil); err != nil {
			return invalidf("note %s: valid until: %v", n.ID, err)
		}
	}
	for _, l := range n.Links {
		switch l.Kind {
		case "", amem.LinkRelated, amem.LinkSupersedes:
		default:
			return invalidf("note %s has a link %s->%s of kind %q; use %q or %q", n.ID, l.Source, l.Target, l.Kind, amem.LinkRelated, amem.LinkSupersedes)
		}
	}
	return nil
}
