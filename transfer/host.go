package transfer

import (
	"context"
	"time"

	"github.com/amem-dev/amem"
)

// What export and import need of a memory, by ability; package memory
// implements them all. Export reads (Reader); Import reads, checks and
// makes notes as Add would (Checker), embeds them (Embedding), writes
// them (Writer) and hands the new ones to the enrichment (Enricher).
// transfer reaches the store, the kernel and the enrichment only through
// them, and writes a note's versions and events with package amem's
// helpers (NewVersion, RecordEvent).

// Reader is a read transaction on the memory's store; after the memory
// is closed it returns amem.ErrClosed.
type Reader interface {
	View(ctx context.Context, fn func(amem.Tx) error) error
}

// Checker checks what a line gives as Add would.
type Checker interface {
	// NewNote checks a new note's request and makes the note: pending,
	// not embedded, not stored.
	NewNote(req amem.AddRequest) (amem.Note, error)
	// CheckContent checks an exported note's content.
	CheckContent(content string) error
}

// Embedding is the memory's embedder: a record whose vector another
// embedder made (by name or dimensions) is embedded again.
type Embedding interface {
	Embedder() amem.Embedder
	// EmbedNotes sets each note's Embedding from the text the memory
	// embeds for it.
	EmbedNotes(ctx context.Context, notes []amem.Note) error
}

// Writer is a write transaction on the memory's store, and what a write
// of new notes needs besides.
type Writer interface {
	// Update runs a read-write transaction; after the memory is closed
	// it returns amem.ErrClosed.
	Update(ctx context.Context, fn func(amem.Tx) error) error
	// EnsureNamespace creates the namespace inside a write, or checks
	// that the memory's embedder made its vectors.
	EnsureNamespace(tx amem.Tx, ns string) error
	// Advance tells the indexes of the namespaces that a write committed.
	Advance(ctx context.Context, nss ...string)
	// Now is the memory's clock: its events' time, and a restored
	// note's due time.
	Now() time.Time
}

// Enricher is the memory's enrichment.
type Enricher interface {
	// EnrichNew enriches notes just added, as Add does (at once, or by
	// waking the workers when enrichment is asynchronous).
	EnrichNew(ctx context.Context, notes []amem.Note)
	// MaxAttempts is its retry limit: a restored note that is not done,
	// has no due time and can still be retried is due now.
	MaxAttempts() int
}

// Host is all that Import needs.
type Host interface {
	Reader
	Checker
	Embedding
	Writer
	Enricher
}
