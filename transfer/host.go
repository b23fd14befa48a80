package transfer

import (
	"context"
	"time"

	"github.com/amem-dev/amem"
)

// Host is what export and import need of the memory: its store behind the
// closed check, its embedder, how it makes, checks and stores a new note,
// its kernel's Advance after a write, its events and the enrichment of
// the notes an import adds. Package memory implements it; transfer reaches
// the store, the kernel and the enrichment only through it.
type Host interface {
	// View and Update run a transaction on the store; after the memory
	// is closed they return amem.ErrClosed.
	View(ctx context.Context, fn func(amem.Tx) error) error
	Update(ctx context.Context, fn func(amem.Tx) error) error

	// Embedder is the memory's embedder: a record whose vector another
	// embedder made (by name or dimensions) is embedded again.
	Embedder() amem.Embedder
	// EmbedText is the text embedded for a note.
	EmbedText(n amem.Note) string
	// Embed embeds texts, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedNotes sets each note's Embedding from its EmbedText.
	EmbedNotes(ctx context.Context, notes []amem.Note) error

	// NewNote checks a new note's request and makes the note, as Add
	// would: pending, not embedded, not stored.
	NewNote(req amem.AddRequest) (amem.Note, error)
	// CheckContent checks an exported note's content as Add would.
	CheckContent(content string) error

	// EnsureNamespace creates the namespace inside a write, or checks
	// that the memory's embedder made its vectors.
	EnsureNamespace(tx amem.Tx, ns string) error
	// InsertNew stores a new note, embedded, with its first version and
	// its created event, inside a write.
	InsertNew(tx amem.Tx, n amem.Note, actor amem.Actor, reason string) error
	// RecordEvent records a webhook event inside a write.
	RecordEvent(tx amem.Tx, n amem.Note, kind amem.EventKind) error
	// Advance tells the indexes of the namespaces that a write committed.
	Advance(ctx context.Context, nss ...string)
	// EnrichNew enriches notes just added, as Add does (at once, or by
	// waking the workers when enrichment is asynchronous).
	EnrichNew(ctx context.Context, notes []amem.Note)

	// Now is the memory's clock; MaxAttempts its enrichment's retry
	// limit: a restored note that is not done, has no due time and can
	// still be retried is due now.
	Now() time.Time
	MaxAttempts() int
}
