package amem

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound is returned when a note or version does not exist in the
	// namespace asked for. A note of another namespace is "not found" too,
	// so that existence never leaks across namespaces.
	ErrNotFound = errors.New("not found")

	// ErrInvalid is returned (wrapped, with the reason) when caller input is
	// rejected: empty or oversized content, invalid UTF-8, a bad namespace
	// name, k out of range. Nothing is changed when it is returned.
	ErrInvalid = errors.New("invalid input")

	// ErrDimensionMismatch is returned when a vector's length differs from
	// the dimension the namespace was created with, or when the namespace
	// was embedded by a different model than the one configured.
	ErrDimensionMismatch = errors.New("embedding dimension mismatch")

	// ErrClosed is returned by every call on a closed Memory.
	ErrClosed = errors.New("memory is closed")

	// ErrConflict is returned when an import would overwrite an existing
	// note with different content, and by a store when a compare-and-set
	// finds the note changed (Tx.UpdateNote) or a claim lost.
	ErrConflict = errors.New("conflict")

	// ErrBusy is returned by a store when another claimant holds a live
	// claim on the note (Tx.Claim).
	ErrBusy = errors.New("note is claimed by another enrichment")
)

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
