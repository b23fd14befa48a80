package amem

import "time"

// AddRequest is a new memory.
type AddRequest struct {
	Namespace string
	Content   string
	// EventTime is when it was said or happened; zero means now. Any
	// other time must pass ValidEventTime.
	EventTime time.Time
	// Keywords, Tags, Context and Metadata given by the caller are kept.
	// The curator adds to tags; keywords or a context given here are the
	// caller's (Note.CallerKeywords, Note.CallerContext), which the
	// curator never changes, while those not given are the curator's to
	// write.
	Keywords []string
	Tags     []string
	Context  string
	Metadata map[string]string
	// Wait enriches the note before Add returns even when Options.Enrich.Async
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
	// GiveBack hands attributes the caller wrote back to the curator:
	// their mark (Note.CallerKeywords, Note.CallerContext) is cleared
	// and the note is queued for enrichment, which rewrites them. Their
	// values stay until then. Setting an attribute and giving it back in
	// one request is ErrInvalid. Keywords or a Context set here that
	// differ from the note's become the caller's (and stay so through a
	// content edit); given as the note has them, they change nothing, so
	// that a form sending every field takes over only what was edited.
	GiveBack []Attribute
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
