package amem

import "time"

// AddRequest is a new memory.
type AddRequest struct {
	Namespace string
	Content   string
	// EventTime is when it was said or happened; zero means now. Any
	// other time must pass ValidEventTime.
	EventTime time.Time
	// Keywords, Tags and Metadata given by the caller are kept; the
	// curator adds to keywords and tags.
	Keywords []string
	Tags     []string
	Metadata map[string]string
	// Wait enriches the note before Add returns even when Options.Async
	// is set (a background worker then leaves it alone).
	Wait bool
}

// MaxBatch bounds the notes of one AddBatch.
const MaxBatch = 1000

// UpdateRequest changes a note. Nil fields are left as they are.
type UpdateRequest struct {
	Content *string
	// EventTime, when non-nil, must pass ValidEventTime: a pointer to the
	// zero time is ErrInvalid, never an erased time.
	EventTime *time.Time
	Keywords  *[]string
	Tags      *[]string
	Context   *string
	// Metadata, when non-nil, replaces the whole map.
	Metadata map[string]string
	// Reason is kept in the note's history.
	Reason string
	// Validity, when non-nil, sets the note's validity as the caller
	// says, and the curator never changes it afterwards (the user's
	// word wins). A zero Validity restores the note to current: valid,
	// superseded by nothing.
	Validity *Validity
}

// Validity is a caller's word on whether a note is still true.
type Validity struct {
	// Until is when the note stopped being true. Zero with SupersededBy
	// set means the superseding note's event time.
	Until time.Time
	// SupersededBy names the note of the namespace that replaced it;
	// the engine links that note to this one with a LinkSupersedes link.
	SupersededBy string
}
