package amem

import (
	"encoding/json"
	"slices"
	"time"
)

// Note is one memory: the A-Mem note m = {content, time, keywords, tags,
// context, embedding, links} plus what a durable, multi-tenant store needs.
// Its JSON is the export format's (Record), which must stay lossless;
// clients see a note as package wire's Note.
type Note struct {
	// ID is unique across all namespaces and sorts by creation time
	// (a 26-character ULID). It is never a list position.
	ID        string `json:"id"`
	Namespace string `json:"namespace"`
	Content   string `json:"content"`

	// EventTime is when the memory was said or happened; IngestTime is
	// when amem stored it. They differ for imported conversations.
	EventTime  time.Time `json:"event_time"`
	IngestTime time.Time `json:"ingest_time"`
	UpdatedAt  time.Time `json:"updated_at"`

	// Keywords are ordered most salient first; Tags are broad categories;
	// Context is one sentence on topic, key points and purpose.
	Keywords []string `json:"keywords"`
	Tags     []string `json:"tags"`
	// CuratorTags are the tags among Tags that the curator added; the
	// rest are the caller's (CallerTags). A caller's edit of Tags makes
	// every tag the caller's. Absent from an export written before it
	// existed, so such notes import with caller tags only.
	CuratorTags []string `json:"curator_tags,omitempty"`
	Context     string   `json:"context"`
	// CallerKeywords and CallerContext say that the caller wrote the
	// note's Keywords or Context (on Add or Update): the curator then
	// leaves that field exactly as it is, on re-enrichment and
	// evolution, until the caller gives it back (UpdateRequest.GiveBack).
	// A note stored before they existed has neither set unless its
	// history shows the caller wrote the field last (the stores'
	// migrations read it).
	CallerKeywords bool `json:"caller_keywords,omitempty"`
	CallerContext  bool `json:"caller_context,omitempty"`

	// Metadata is the caller's own string map; amem never interprets it
	// except for search filters.
	Metadata map[string]string `json:"metadata,omitempty"`

	// Embedding is the vector of the note's embedding text (see
	// Options.EmbedText). It is omitted from reads unless asked for.
	Embedding []float32 `json:"embedding,omitempty"`

	// Links holds every link that touches this note, in both directions.
	Links []Link `json:"links"`

	// Version counts the note's changes; version 1 is the note as added.
	Version int `json:"version"`

	Enrichment Enrichment `json:"enrichment"`

	// ValidUntil is when what the note says stopped being true; zero
	// while it still is. SupersededBy is the note that replaced it, when
	// one did (see Supersession): set by the curator's decision, or by
	// the caller (UpdateRequest.Validity). Both notes stay; search ranks
	// a superseded note below the note that superseded it.
	ValidUntil   time.Time `json:"valid_until,omitzero"`
	SupersededBy string    `json:"superseded_by,omitempty"`
	// CallerValidity is set once the caller has set or cleared the
	// note's validity: the user's word wins, so the curator never
	// changes ValidUntil or SupersededBy again.
	CallerValidity bool `json:"caller_validity,omitempty"`
}

// Link is an edge of the memory graph between two notes of one namespace.
// It is directed from the note that chose it (Source) to the candidate it
// chose (Target), but search follows it both ways.
type Link struct {
	Source    string    `json:"source"`
	Target    string    `json:"target"`
	Reason    string    `json:"reason,omitempty"`
	Strength  float64   `json:"strength"`
	CreatedAt time.Time `json:"created_at"`
	// Kind is what the link means: LinkRelated (also written "", as
	// every link stored before kinds existed is) or LinkSupersedes.
	Kind LinkKind `json:"kind,omitempty"`
}

// LinkKind says what a link means.
type LinkKind string

const (
	// LinkRelated links notes on one topic, the A-Mem link. It is the
	// kind of a link whose Kind is "".
	LinkRelated LinkKind = "related"
	// LinkSupersedes goes from a new note to an old one that the new
	// note made no longer true ("I'm not allergic to penicillin after
	// all" supersedes "I'm allergic to penicillin"); the old note's
	// SupersededBy names the new one.
	LinkSupersedes LinkKind = "supersedes"
)

// Other returns the end of l that is not id.
func (l Link) Other(id string) string {
	if l.Source == id {
		return l.Target
	}
	return l.Source
}

// EnrichState says how far the A-Mem pipeline got with a note.
type EnrichState string

const (
	// EnrichPending notes are stored and searchable but not yet enriched.
	EnrichPending EnrichState = "pending"
	// EnrichDone notes have curator-written attributes and links.
	EnrichDone EnrichState = "done"
	// EnrichFailed notes are stored and searchable; Enrichment.Error says
	// why the curator failed. Memory.Enrich retries them.
	EnrichFailed EnrichState = "failed"
)

// Enrichment is the note's state in the A-Mem pipeline.
type Enrichment struct {
	State    EnrichState `json:"state"`
	Error    string      `json:"error,omitempty"`
	Attempts int         `json:"attempts"`
	// At is when the state last changed; zero while never attempted.
	At time.Time `json:"at,omitzero"`
	// DueAt is when the note is next due for enrichment in the
	// background: set for pending notes and failed ones with retries
	// left, zero for done notes and notes that failed MaxAttempts times
	// (they wait for an explicit retry).
	DueAt time.Time `json:"due_at,omitzero"`
}

// Clone returns a deep copy, so callers can't alias the store's slices.
func (n Note) Clone() Note {
	n.Keywords = slices.Clone(n.Keywords)
	n.Tags = slices.Clone(n.Tags)
	n.CuratorTags = slices.Clone(n.CuratorTags)
	n.Embedding = slices.Clone(n.Embedding)
	n.Links = slices.Clone(n.Links)
	if n.Metadata != nil {
		m := make(map[string]string, len(n.Metadata))
		for k, v := range n.Metadata {
			m[k] = v
		}
		n.Metadata = m
	}
	return n
}

// Version is one entry of a note's history: the note's state after the
// change, what changed, who changed it and why. Its JSON is the export
// format's; clients see package wire's Version.
type Version struct {
	NoteID    string        `json:"note_id"`
	Namespace string        `json:"namespace"`
	Version   int           `json:"version"`
	Actor     Actor         `json:"actor"`
	Reason    string        `json:"reason,omitempty"`
	Changes   []FieldChange `json:"changes"`
	Snapshot  Snapshot      `json:"snapshot"`
	CreatedAt time.Time     `json:"created_at"`
}

// Actor names who made a change.
type Actor string

const (
	ActorUser      Actor = "user"      // Add or Update by the caller
	ActorConstruct Actor = "construct" // the curator's note construction
	ActorEvolve    Actor = "evolve"    // evolution triggered by a new note
	ActorRestore   Actor = "restore"   // Restore to an earlier version
	ActorImport    Actor = "import"    // a note imported without history
)

// Snapshot is the user-visible state of a note at one version: enough to
// restore it.
type Snapshot struct {
	Content   string    `json:"content"`
	EventTime time.Time `json:"event_time"`
	Keywords  []string  `json:"keywords"`
	Tags      []string  `json:"tags"`
	// CuratorTags are the tags the curator added (see Note); absent
	// from versions written before it existed.
	CuratorTags []string          `json:"curator_tags,omitempty"`
	Context     string            `json:"context"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	// ValidUntil and SupersededBy are the note's validity (see Note),
	// so that a supersession, and its undoing, are versions with their
	// changes. Restore leaves validity as it is: only the caller's
	// UpdateRequest.Validity changes it after the curator.
	ValidUntil   time.Time `json:"valid_until,omitzero"`
	SupersededBy string    `json:"superseded_by,omitempty"`
	// CallerKeywords and CallerContext are the note's marks (see Note),
	// so that a restore brings back who owns the fields with them.
	CallerKeywords bool `json:"caller_keywords,omitempty"`
	CallerContext  bool `json:"caller_context,omitempty"`
}

// FieldChange is one field's old and new value, JSON-encoded so that lists
// and strings read the same way.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Snapshot is the note's fields that a version records.
func (n Note) Snapshot() Snapshot {
	c := n.Clone()
	return Snapshot{
		Content:     c.Content,
		EventTime:   c.EventTime,
		Keywords:    c.Keywords,
		Tags:        c.Tags,
		CuratorTags: c.CuratorTags,
		Context:     c.Context,
		Metadata:    c.Metadata,

		ValidUntil:     c.ValidUntil,
		SupersededBy:   c.SupersededBy,
		CallerKeywords: c.CallerKeywords,
		CallerContext:  c.CallerContext,
	}
}

// Changes lists the fields that differ between two states, each as JSON,
// in a fixed field order.
func Changes(a, b Snapshot) []FieldChange {
	var out []FieldChange
	add := func(field string, old, new any) {
		o, _ := json.Marshal(old)
		n, _ := json.Marshal(new)
		if string(o) != string(n) {
			out = append(out, FieldChange{Field: field, Old: string(o), New: string(n)})
		}
	}
	add("content", a.Content, b.Content)
	if !a.EventTime.Equal(b.EventTime) {
		add("event_time", a.EventTime, b.EventTime)
	}
	add("keywords", nonNil(a.Keywords), nonNil(b.Keywords))
	add("tags", nonNil(a.Tags), nonNil(b.Tags))
	add("curator_tags", nonNil(a.CuratorTags), nonNil(b.CuratorTags))
	add("context", a.Context, b.Context)
	add("metadata", nonNilMap(a.Metadata), nonNilMap(b.Metadata))
	if !a.ValidUntil.Equal(b.ValidUntil) {
		add("valid_until", a.ValidUntil, b.ValidUntil)
	}
	add("superseded_by", a.SupersededBy, b.SupersededBy)
	// As the wire's snapshot names it: a list, so that a change of owner
	// reads as one change.
	add("caller_set", nonNilAttrs(a.CallerSet()), nonNilAttrs(b.CallerSet()))
	if out == nil {
		out = []FieldChange{}
	}
	return out
}

// SameSnapshot reports whether two states have no field change between
// them.
func SameSnapshot(a, b Snapshot) bool { return len(Changes(a, b)) == 0 }

// NewVersion is the history row of n, changed by actor for reason from prev
// (nil for a new note): its field changes and snapshot, at n.UpdatedAt.
func NewVersion(n Note, actor Actor, reason string, prev *Note) Version {
	snap := n.Snapshot()
	var changes []FieldChange
	if prev == nil {
		changes = Changes(Snapshot{}, snap)
	} else {
		changes = Changes(prev.Snapshot(), snap)
	}
	return Version{
		NoteID: n.ID, Namespace: n.Namespace, Version: n.Version,
		Actor: actor, Reason: reason, Changes: changes, Snapshot: snap,
		CreatedAt: n.UpdatedAt,
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilAttrs(s []Attribute) []Attribute {
	if s == nil {
		return []Attribute{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// ValidAt reports whether the note was still true at t: it has no
// ValidUntil, or t is before it.
func (n Note) ValidAt(t time.Time) bool {
	return n.ValidUntil.IsZero() || t.Before(n.ValidUntil)
}

// ValidFrom is when what a note says became true: its event time, or
// when it was stored if it has none.
func (n Note) ValidFrom() time.Time {
	if n.EventTime.IsZero() {
		return n.IngestTime
	}
	return n.EventTime
}

// Attribute names a note attribute that the curator writes unless the
// caller has written it (Note.CallerKeywords, Note.CallerContext).
type Attribute string

const (
	AttributeKeywords Attribute = "keywords"
	AttributeContext  Attribute = "context"
)

// ValidAttribute is nil for an attribute a caller can give back, and
// ErrInvalid otherwise (tags have per-tag provenance: an edit of Tags
// makes them all the caller's).
func ValidAttribute(a Attribute) error {
	switch a {
	case AttributeKeywords, AttributeContext:
		return nil
	}
	return invalidf("%q is not an attribute to give back to the curator (keywords or context)", string(a))
}

// CallerSet returns the attributes the caller wrote, keywords first; nil
// when the curator owns them all.
func (n Note) CallerSet() []Attribute { return callerSet(n.CallerKeywords, n.CallerContext) }

// CallerSet returns the attributes the caller wrote at this version, as
// Note's.
func (s Snapshot) CallerSet() []Attribute { return callerSet(s.CallerKeywords, s.CallerContext) }

func callerSet(keywords, context bool) []Attribute {
	var out []Attribute
	if keywords {
		out = append(out, AttributeKeywords)
	}
	if context {
		out = append(out, AttributeContext)
	}
	return out
}
