package amem

import (
	"context"
	"time"
)

// Embedder turns texts into vectors. Implementations must return one vector
// per text, all of Dimensions() length, and be safe for concurrent use.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dimensions() int
	// Name identifies the model (and its version): a namespace remembers
	// the name it was embedded with, and mixing models is an error.
	Name() string
}

// Curator makes the A-Mem decisions. The offline curator (package offline)
// works from embeddings and text statistics; LLM curators prompt a model.
// Curators must be safe for concurrent use.
type Curator interface {
	// Construct writes a new note's keywords, tags and context (the paper's
	// note construction). It may leave fields empty.
	Construct(ctx context.Context, note Note) (Attributes, error)

	// Connect decides which candidates the new note links to and how the
	// candidates evolve (link generation and memory evolution). The note
	// already carries its constructed attributes and embedding. Links and
	// evolutions that name a note not among the candidates are dropped.
	Connect(ctx context.Context, note Note, candidates []Candidate) (Decision, error)
}

// Observer is an optional Curator ability, found by type assertion. A
// curator that keeps per-namespace statistics in memory is shown every
// enriched note of a namespace, oldest first, before its first decision
// there in this process, so that a restarted process decides as a
// continuous one would. Curators without it are not warmed.
type Observer interface {
	Observe(note Note)
}

// Attributes are what note construction writes.
type Attributes struct {
	Keywords []string `json:"keywords"`
	Tags     []string `json:"tags"`
	Context  string   `json:"context"`
	Usage    Usage    `json:"usage"`
}

// Candidate is a nearby note shown to the curator.
type Candidate struct {
	Note       Note    `json:"note"`
	Similarity float64 `json:"similarity"` // cosine to the new note
}

// Decision is the curator's output for link generation and evolution.
type Decision struct {
	Links  []LinkDecision `json:"links"`
	Evolve []Evolution    `json:"evolve"`
	// Note, when set, refines the new note's own attributes in the light
	// of its neighbours (the paper's "strengthen" action).
	Note  *Attributes `json:"note,omitempty"`
	Usage Usage       `json:"usage"`
	// EvolveUsage is the tokens of a separate evolution call, for curators
	// that decide links and evolutions in two calls; Usage is then the
	// linking call's. Stats report it as the operation "evolve".
	EvolveUsage Usage `json:"evolve_usage,omitzero"`
	// Supersede names candidates that the new note makes no longer
	// true. The engine applies one only to a candidate it showed, whose
	// event time is not after the new note's, that no other note
	// superseded and whose validity the caller has not set: it links
	// the new note to it with a LinkSupersedes link, ends its validity
	// at the new note's event time and records the reason in its
	// history. Curators that cannot tell leave it empty.
	Supersede []Supersession `json:"supersede,omitempty"`
}

// Supersession is the curator's decision that the new note replaces a
// candidate: the candidate stated something the new note says is no
// longer true (a corrected belief, a moved appointment, a new address).
type Supersession struct {
	Target string `json:"target"`
	Reason string `json:"reason"`
}

// LinkDecision links the new note to one candidate.
type LinkDecision struct {
	Target   string  `json:"target"`
	Reason   string  `json:"reason"`
	Strength float64 `json:"strength"` // in [0, 1]
}

// Evolution rewrites one candidate's attributes. Nil fields are left as
// they are; a non-nil empty list clears the field.
type Evolution struct {
	Target   string   `json:"target"`
	Keywords []string `json:"keywords,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Context  *string  `json:"context,omitempty"`
	Reason   string   `json:"reason"`
}

// Usage counts model tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add sums usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens}
}

// Store is durable storage of namespaces, notes, links, versions and token
// usage. All reads and writes go through transactions; a Tx is bound to the
// context given to Update or View and must not be used after fn returns.
// Implementations: package sqlite (embedded) and package postgres.
// A conformance suite for implementations is in package storetest.
type Store interface {
	// Update runs fn in a read-write transaction, committed if fn returns
	// nil and rolled back otherwise.
	Update(ctx context.Context, fn func(Tx) error) error
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	Close() error
}

// Tx is one transaction of a Store: the abilities every store has
// (reading notes, writing them, the change feed the indexes follow, and
// the claims that let any number of processes enrich one memory), each
// an interface of its own so that a consumer can ask for what it uses.
// Others are optional, found by type assertion on the Tx, as
// database/sql/driver does, each with a documented fallback:
// EventRecorder (the webhook outbox), UsageKeeper (token usage),
// EventTimePager (pages by event time, eventorder.go), Trasher
// (deleted notes kept for a while, trash.go) and Retainer (namespaces'
// retention policies, retention.go). A wrapper that
// embeds a Tx hides them unless it declares them too.
//
// Every method is scoped to one namespace except FindNote and
// Namespaces, which Memory uses only for administration (the CLI
// resolving an ID, stats).
//
// Rules every implementation keeps (package storetest checks them):
//   - A View is one consistent snapshot (REPEATABLE READ or stronger).
//   - A failed PutLink (a missing note: ErrNotFound) leaves the transaction
//     usable; Memory skips such links and goes on.
//   - AddVersion for a missing note is ErrNotFound; for an existing
//     version number, ErrConflict.
//   - fn given to Changes or EmbeddingsOf must not use the Tx.
//   - Times come back in UTC; Keywords, Tags and Links are never nil; empty
//     Metadata is nil.
//   - Tags match case-insensitively; a note with a zero event time matches
//     no bounded time range.
//   - Namespaces lists only namespaces recorded by PutNamespace.
type Tx interface {
	NoteReader
	NoteWriter
	ChangeFeed
	Claimer
}

// NoteReader reads a namespace's notes, their versions and counts.
type NoteReader interface {
	Namespace(ns string) (NamespaceInfo, error) // ErrNotFound if new
	Namespaces() ([]NamespaceInfo, error)

	// Note returns the note with its embedding and links.
	Note(ns, id string) (Note, error)
	// Notes returns the notes with the given IDs that exist, with
	// embeddings and links, in no particular order.
	Notes(ns string, ids []string) ([]Note, error)
	// NotesWithoutEmbeddings is Notes leaving Embedding nil: a search
	// loads its hits so, since a 512-d vector is most of a note's row
	// and its decoding most of the read's cost, and the ranking is done.
	NotesWithoutEmbeddings(ns string, ids []string) ([]Note, error)
	// FindNote looks an ID up in every namespace.
	FindNote(id string) (Note, error)
	// ListNotes pages through a namespace in ID order.
	ListNotes(ns string, q ListQuery) ([]Note, error)
	// NoteIDsByContent returns, in ID order, the IDs of the namespace's
	// notes whose content is exactly content and, unless at is zero,
	// whose event time is at. Import uses it to recognise notes it added
	// before; with a time it should be an indexed lookup.
	NoteIDsByContent(ns, content string, at time.Time) ([]string, error)

	// EmbeddingsOf calls fn, in no particular order, for each of ids that
	// is a note of the namespace with an embedding; the others are
	// skipped. vec is only valid during the call. The approximate index
	// re-ranks its candidates by the vectors it reads here.
	EmbeddingsOf(ns string, ids []string, fn func(id string, vec []float32) error) error
	// MatchIDs returns the IDs of notes that pass the filter; a zero
	// filter passes every note (Memory.Browse lists by it).
	MatchIDs(ns string, f Filter) ([]string, error)

	Versions(ns, id string) ([]Version, error)
	// Stats counts a namespace's notes by enrichment state, and its links.
	Stats(ns string) (NamespaceStats, error)
}

// NoteWriter writes notes, links and versions. Every write of a note
// also takes the namespace's next number in the change feed.
type NoteWriter interface {
	PutNamespace(info NamespaceInfo) error
	// InsertNote stores a new note; an existing ID is ErrConflict.
	InsertNote(n Note) error
	// UpdateNote replaces every stored field of an existing note except
	// links (which have their own methods) and its claim, if the stored
	// note is at version ifVersion: compare-and-set, so that a change
	// computed from an older state is ErrConflict, never a lost update.
	UpdateNote(n Note, ifVersion int) error
	// DeleteNote removes a note, every link touching it and its versions,
	// and leaves a tombstone in the namespace's change feed.
	DeleteNote(ns, id string) error

	// PutLink inserts or replaces the link Source->Target.
	PutLink(ns string, l Link) error
	// DeleteLinksFrom removes every link whose source is id.
	DeleteLinksFrom(ns, id string) error

	AddVersion(v Version) error
}

// ChangeFeed is what the indexes follow (package kernel). Every
// transaction that inserts, updates or deletes notes of a namespace takes
// the next sequence number of that namespace (one per transaction and
// namespace) and stamps the notes it wrote with it; a deleted note leaves
// a tombstone with it. Within a namespace, sequence numbers are handed
// out in commit order (the namespace's feed row is locked until commit),
// so a reader that has seen head H has seen every change numbered H or
// lower.
type ChangeFeed interface {
	// FeedHead returns the namespace's position; a namespace never
	// written is the zero Feed.
	FeedHead(ns string) (Feed, error)
	// Changes calls fn, in sequence order, for every note of the
	// namespace last changed after seq after (its current state, without
	// links) and every tombstone after it. A note changed several times
	// appears once, at its latest number. fn must not use the Tx, and
	// the note's Embedding is valid only during the call (a store may
	// reuse it): copy what you keep.
	Changes(ns string, after int64, fn func(Change) error) error
	// CompactFeed drops the namespace's tombstones of deletions made
	// before t and raises the feed's horizon to the highest dropped
	// number: a follower behind the horizon must reload in full.
	CompactFeed(ns string, before time.Time) (int, error)
}

// Claimer holds enrichment claims. Not optional: without it two
// processes would enrich, link and evolve the same note at once.
//
// A note is enriched by one claimant at a time, across processes. A
// claim is held by an owner token until it is released or its lease
// expires; an expired claim may be taken by anyone.
type Claimer interface {
	// ClaimDue claims up to limit notes, of any namespace, whose
	// enrichment is due at now (Enrichment.DueAt set and not after now)
	// and that no live claim holds, oldest due first, for owner until
	// until.
	ClaimDue(owner string, now, until time.Time, limit int) ([]NoteRef, error)
	// Claim claims one note for owner until until: ErrNotFound if the note
	// is not there, ErrBusy if another owner's claim is live at now.
	Claim(ns, id, owner string, now, until time.Time) error
	// RenewClaim extends owner's claim; ErrConflict if owner no longer
	// holds it.
	RenewClaim(ns, id, owner string, until time.Time) error
	// ReleaseClaim ends owner's claim; ErrConflict if owner no longer
	// holds it (it expired and was taken, or was released).
	ReleaseClaim(ns, id, owner string) error
}

// EventRecorder is a Tx's optional ability to queue webhook events in the
// transaction that makes the change. A Tx without it records none: its
// store keeps no webhooks (package webhook's Store) to deliver them to.
type EventRecorder interface {
	// RecordEvent queues e in the outbox of every webhook of e.Namespace
	// that takes e.Kind, as part of this transaction; with no such
	// webhook it writes nothing. Whether a namespace has webhooks is read
	// here, in the transaction, never from a cache: a webhook created by
	// another process counts from its commit on.
	RecordEvent(e Event) error
}

// RecordEvent queues the event of kind for n, at at, in tx, when tx has
// the webhook outbox (EventRecorder); a Tx without it records nothing,
// since its store keeps no webhooks to deliver the event to.
func RecordEvent(tx Tx, n Note, kind EventKind, at time.Time) error {
	r, ok := tx.(EventRecorder)
	if !ok {
		return nil
	}
	return r.RecordEvent(Event{Namespace: n.Namespace, NoteID: n.ID, Version: n.Version, Kind: kind, At: at.UTC()})
}

// UsageKeeper is a Tx's optional ability to keep the model tokens spent
// enriching notes. A Tx without it keeps none: enrichment goes on, and
// Memory's Stats and NoteUsage report no usage.
type UsageKeeper interface {
	// RecordUsage keeps a record of the tokens an operation spent.
	RecordUsage(r UsageRecord) error
	// UsageTotals sums a namespace's usage by operation, in operation
	// order; NoteUsage the same for one note's records.
	UsageTotals(ns string) ([]UsageTotal, error)
	NoteUsage(ns, id string) ([]UsageTotal, error)
}

// Feed is a namespace's position in its change feed, with the embedder
// its vectors come from, so a follower can check both in one read.
type Feed struct {
	// Head is the number of the namespace's last committed change.
	Head int64
	// Horizon is the highest number whose tombstones were compacted away:
	// a follower at or past it can catch up change by change, one behind
	// it must reload the namespace.
	Horizon int64
	// Embedder and Dimensions are the namespace's (empty and 0 while it
	// is not recorded).
	Embedder   string
	Dimensions int
}

// Change is one entry of a namespace's change feed.
type Change struct {
	Seq     int64
	ID      string
	Deleted bool
	// Note is the note's state at Seq, without links; zero when Deleted.
	// Its Embedding is valid only during the call.
	Note Note
}

// NoteRef names a note.
type NoteRef struct {
	Namespace string
	ID        string
}

// NamespaceInfo is what a store keeps about a namespace: the embedder its
// vectors came from, so that models are never mixed.
type NamespaceInfo struct {
	Name       string
	Embedder   string
	Dimensions int
	CreatedAt  time.Time
}

// ListQuery pages through notes in ID order: notes with ID > After, at most
// Limit of them, optionally only those in one enrichment state. Notes come
// without their embeddings unless Embeddings is set.
type ListQuery struct {
	After      string
	Limit      int
	State      EnrichState
	Embeddings bool
}

// Filter narrows a search to the notes that pass all of its fields; zero
// fields don't filter. Stores say exactly which notes pass it
// (Tx.MatchIDs), and searches rank only those, never a truncated window. Memory
// takes at most MaxFilterTerms tags and metadata pairs together.
type Filter struct {
	// From and To bound EventTime: From <= t < To; a zero bound is no
	// bound. A note with a zero EventTime passes no bounded range.
	From, To time.Time
	// Tags: the note must have every one of them, compared after
	// strings.ToLower ("Work" matches "work").
	Tags []string
	// TagSource says which of a note's tags Tags are matched against:
	// all of them (TagSourceAny), the caller's only, or the curator's
	// only. Without Tags it filters nothing.
	TagSource TagSource
	// Metadata: the note's metadata must hold every pair, compared
	// exactly.
	Metadata map[string]string
	// ValidAt, when set, passes only the notes still true at that time
	// (Note.ValidAt): without a ValidUntil, or with one after it.
	ValidAt time.Time
}

// IsZero reports whether f filters nothing.
func (f Filter) IsZero() bool {
	return f.From.IsZero() && f.To.IsZero() && len(f.Tags) == 0 && len(f.Metadata) == 0 && f.ValidAt.IsZero()
}

// UsageRecord is the token usage of one model operation.
type UsageRecord struct {
	Namespace string
	NoteID    string
	Operation string // "construct", "connect", "embed", "answer", ...
	Usage     Usage
	At        time.Time
}

// UsageTotal sums a namespace's usage for one operation.
type UsageTotal struct {
	Operation string
	Calls     int
	Usage
}

// NamespaceStats counts a namespace's contents.
type NamespaceStats struct {
	Notes   int
	ByState map[EnrichState]int
	Links   int
}

// PageSize is how many notes a walk over a namespace reads at a time
// (EachPage): a page's rows are one store read, and a namespace of a
// million notes is walked in 2,000 of them.
const PageSize = 500

// EachPage walks a namespace's notes a page of PageSize at a time, in ID
// order: list reads the page of notes with IDs after after ("" for the
// first); fn gets each page and returns false to stop early. It stops
// after a short page, or at the first error.
func EachPage(list func(after string, limit int) ([]Note, error), fn func(page []Note) (more bool, err error)) error {
	after := ""
	for {
		page, err := list(after, PageSize)
		if err != nil {
			return err
		}
		more, err := fn(page)
		if err != nil || !more || len(page) < PageSize {
			return err
		}
		after = page[len(page)-1].ID
	}
}
