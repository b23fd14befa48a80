// Package wire is amem's public JSON: the notes, search results, links,
// histories and statistics that the HTTP API, the MCP tools and the CLI's
// --json give. The domain types in package amem change with the engine;
// these change only on purpose. Each type is written out field by field
// and filled by a converter that copies field by field, so a field added
// to a domain type reaches no client until it is added here. The golden
// files under testdata pin every shape, and a test fails when a domain
// type gains a field that this package has not decided on.
//
// The jsonschema tags are the descriptions MCP clients read in the tools'
// output schemas.
package wire

import (
	"time"

	"github.com/amem-dev/amem"
)

// List converts every element of s with f. A nil s stays nil (JSON null)
// and an empty one empty ([]), as the domain gave them.
func List[T, U any](s []T, f func(T) U) []U {
	if s == nil {
		return nil
	}
	out := make([]U, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// Items is List for the list an answer is made of: empty rather than
// null when there is nothing, so that clients can always iterate.
func Items[T, U any](s []T, f func(T) U) []U {
	if out := List(s, f); out != nil {
		return out
	}
	return []U{}
}

// Note is a whole note, without its embedding: a vector is large, and
// meaningful only to the embedder that made it.
type Note struct {
	ID          string            `json:"id" jsonschema:"the note's ID: 26 characters, unique across namespaces"`
	Namespace   string            `json:"namespace" jsonschema:"the memory space the note belongs to"`
	Content     string            `json:"content" jsonschema:"the memory as it was stored"`
	EventTime   time.Time         `json:"event_time" jsonschema:"when it was said or happened (RFC 3339)"`
	IngestTime  time.Time         `json:"ingest_time" jsonschema:"when amem stored it (RFC 3339)"`
	UpdatedAt   time.Time         `json:"updated_at" jsonschema:"when it last changed (RFC 3339)"`
	Keywords    []string          `json:"keywords" jsonschema:"salient words, most salient first"`
	Tags        []string          `json:"tags" jsonschema:"broad categories"`
	CuratorTags []string          `json:"curator_tags" jsonschema:"the tags amem added (the rest are the caller's); [] when none"`
	Context     string            `json:"context" jsonschema:"one sentence on the note's topic, key points and purpose, written by amem unless caller_set lists it"`
	CallerSet   []string          `json:"caller_set" jsonschema:"the attributes the caller wrote (keywords, context), which amem never rewrites until given back; [] when none"`
	Metadata    map[string]string `json:"metadata,omitempty" jsonschema:"the caller's own string pairs, kept as given"`
	Links       []Link            `json:"links" jsonschema:"every link touching the note, in both directions"`
	Version     int               `json:"version" jsonschema:"1 for the note as added, one more for each change"`
	Enrichment  Enrichment        `json:"enrichment" jsonschema:"how far amem got with the note's keywords, tags, context and links"`

	// A note no longer true (docs/SEARCH.md, "What is true now").
	ValidUntil     time.Time `json:"valid_until,omitzero" jsonschema:"when what the note says stopped being true (RFC 3339); absent while it holds"`
	SupersededBy   string    `json:"superseded_by,omitempty" jsonschema:"the note that replaced this one; absent when none did"`
	CallerValidity bool      `json:"caller_validity,omitempty" jsonschema:"true once a caller set or cleared the note's validity, which amem's curator then leaves alone"`
}

// NoteOf is n as clients see it.
func NoteOf(n amem.Note) Note {
	return Note{
		ID:          n.ID,
		Namespace:   n.Namespace,
		Content:     n.Content,
		EventTime:   n.EventTime,
		IngestTime:  n.IngestTime,
		UpdatedAt:   n.UpdatedAt,
		Keywords:    n.Keywords,
		Tags:        n.Tags,
		CuratorTags: orEmpty(n.CuratorTags),
		Context:     n.Context,
		CallerSet:   CallerSetOf(n.CallerKeywords, n.CallerContext),
		Metadata:    n.Metadata,
		Links:       List(n.Links, LinkOf),
		Version:     n.Version,
		Enrichment:  EnrichmentOf(n.Enrichment),

		ValidUntil:     n.ValidUntil,
		SupersededBy:   n.SupersededBy,
		CallerValidity: n.CallerValidity,
	}
}

// CallerSetOf lists the attributes the caller wrote, by their JSON
// names, keywords first: [] when the curator owns them all.
func CallerSetOf(keywords, context bool) []string {
	out := []string{}
	if keywords {
		out = append(out, string(amem.AttributeKeywords))
	}
	if context {
		out = append(out, string(amem.AttributeContext))
	}
	return out
}

// orEmpty is s, or [] for nil: a list that a note may lack (curator
// tags) is still a list that clients can iterate.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Link is an edge of the memory graph.
type Link struct {
	Source    string    `json:"source" jsonschema:"the note that chose the link when it was enriched"`
	Target    string    `json:"target" jsonschema:"the earlier note it chose"`
	Reason    string    `json:"reason,omitempty" jsonschema:"why the notes are linked"`
	Strength  float64   `json:"strength" jsonschema:"0 to 1, higher is more closely related"`
	CreatedAt time.Time `json:"created_at" jsonschema:"when the link was made (RFC 3339)"`
	Kind      string    `json:"kind" jsonschema:"related: on one topic; supersedes: the source made the target no longer true"`
}

// LinkOf is l as clients see it: a link stored before kinds is related.
func LinkOf(l amem.Link) Link {
	kind := l.Kind
	if kind == "" {
		kind = amem.LinkRelated
	}
	return Link{Source: l.Source, Target: l.Target, Reason: l.Reason, Strength: l.Strength, CreatedAt: l.CreatedAt, Kind: string(kind)}
}

// Enrichment is a note's state in the A-Mem pipeline.
type Enrichment struct {
	State    string    `json:"state" jsonschema:"pending: stored and searchable, keywords, tags, context and links still to come; done; failed: see error (the note is kept)"`
	Error    string    `json:"error,omitempty" jsonschema:"why the last enrichment failed"`
	Attempts int       `json:"attempts" jsonschema:"how many enrichments were tried"`
	At       time.Time `json:"at,omitzero" jsonschema:"when the state last changed (RFC 3339)"`
	DueAt    time.Time `json:"due_at,omitzero" jsonschema:"when the note is next due for enrichment in the background (RFC 3339)"`
}

// EnrichmentOf is e as clients see it.
func EnrichmentOf(e amem.Enrichment) Enrichment {
	return Enrichment{State: string(e.State), Error: e.Error, Attempts: e.Attempts, At: e.At, DueAt: e.DueAt}
}

// Result is one note of a search's context list: the note's fields beside
// its score, without its links (a linked note comes as a result of its
// own).
type Result struct {
	ID          string            `json:"id" jsonschema:"the note's ID"`
	Content     string            `json:"content" jsonschema:"the memory as it was stored"`
	Score       float64           `json:"score" jsonschema:"direct: the hit's relevance, 0 to 1, about the probability that it is relevant, in every mode; linked: the link's strength"`
	Kind        string            `json:"kind" jsonschema:"direct: matches the query; linked: linked to a direct hit"`
	Via         string            `json:"via,omitempty" jsonschema:"for a linked note, the direct hit it is linked to"`
	Namespace   string            `json:"namespace" jsonschema:"the memory space the note belongs to"`
	EventTime   time.Time         `json:"event_time" jsonschema:"when it was said or happened (RFC 3339)"`
	Keywords    []string          `json:"keywords" jsonschema:"salient words, most salient first"`
	Tags        []string          `json:"tags" jsonschema:"broad categories"`
	CuratorTags []string          `json:"curator_tags" jsonschema:"the tags amem added (the rest are the caller's); [] when none"`
	Context     string            `json:"context" jsonschema:"one sentence on the note's topic, key points and purpose, written by amem unless caller_set lists it"`
	CallerSet   []string          `json:"caller_set" jsonschema:"the attributes the caller wrote (keywords, context), which amem never rewrites until given back; [] when none"`
	Metadata    map[string]string `json:"metadata,omitempty" jsonschema:"the caller's own string pairs, kept as given"`

	// A note no longer true, by the time the search answers for.
	SupersededBy string    `json:"superseded_by,omitempty" jsonschema:"the note that replaced this one, by the time the search answers for; absent when none did"`
	ValidUntil   time.Time `json:"valid_until,omitzero" jsonschema:"when what the note says stopped being true (RFC 3339); absent while it holds"`
}

// ResultOf is r as clients see it.
func ResultOf(r amem.Result) Result {
	n := r.Note
	return Result{
		ID:          n.ID,
		Content:     n.Content,
		Score:       r.Score,
		Kind:        string(r.Kind),
		Via:         r.Via,
		Namespace:   n.Namespace,
		EventTime:   n.EventTime,
		Keywords:    n.Keywords,
		Tags:        n.Tags,
		CuratorTags: orEmpty(n.CuratorTags),
		Context:     n.Context,
		CallerSet:   CallerSetOf(n.CallerKeywords, n.CallerContext),
		Metadata:    n.Metadata,

		SupersededBy: n.SupersededBy,
		ValidUntil:   n.ValidUntil,
	}
}

// Neighbor is a note linked to the one asked about.
type Neighbor struct {
	Link Link `json:"link" jsonschema:"the link: source chose target; the note asked about is one of them"`
	Note Note `json:"note" jsonschema:"the note at the other end of the link"`
}

// NeighborOf is nb as clients see it.
func NeighborOf(nb amem.Neighbor) Neighbor {
	return Neighbor{Link: LinkOf(nb.Link), Note: NoteOf(nb.Note)}
}

// Version is one entry of a note's history.
type Version struct {
	NoteID    string        `json:"note_id" jsonschema:"the note's ID"`
	Namespace string        `json:"namespace" jsonschema:"the memory space the note belongs to"`
	Version   int           `json:"version" jsonschema:"1 for the note as added, one more for each change"`
	Actor     string        `json:"actor" jsonschema:"who changed the note: user, construct (amem wrote keywords, tags and context), evolve (a related new note updated it), restore or import"`
	Reason    string        `json:"reason,omitempty" jsonschema:"why it changed"`
	Changes   []FieldChange `json:"changes" jsonschema:"each changed field with its old and new value"`
	Snapshot  Snapshot      `json:"snapshot" jsonschema:"the note as this version left it"`
	CreatedAt time.Time     `json:"created_at" jsonschema:"when it changed (RFC 3339)"`
}

// VersionOf is v as clients see it.
func VersionOf(v amem.Version) Version {
	return Version{
		NoteID:    v.NoteID,
		Namespace: v.Namespace,
		Version:   v.Version,
		Actor:     string(v.Actor),
		Reason:    v.Reason,
		Changes:   List(v.Changes, FieldChangeOf),
		Snapshot:  SnapshotOf(v.Snapshot),
		CreatedAt: v.CreatedAt,
	}
}

// FieldChange is one field's old and new value.
type FieldChange struct {
	Field string `json:"field" jsonschema:"the field that changed, as the note names it"`
	Old   string `json:"old" jsonschema:"its value before, as JSON"`
	New   string `json:"new" jsonschema:"its value after, as JSON"`
}

// FieldChangeOf is c as clients see it.
func FieldChangeOf(c amem.FieldChange) FieldChange {
	return FieldChange{Field: c.Field, Old: c.Old, New: c.New}
}

// Snapshot is what a note's user can see of it at one version.
type Snapshot struct {
	Content     string            `json:"content" jsonschema:"the memory"`
	EventTime   time.Time         `json:"event_time" jsonschema:"when it was said or happened (RFC 3339)"`
	Keywords    []string          `json:"keywords" jsonschema:"salient words, most salient first"`
	Tags        []string          `json:"tags" jsonschema:"broad categories"`
	CuratorTags []string          `json:"curator_tags" jsonschema:"the tags amem added (the rest are the caller's); [] when none"`
	Context     string            `json:"context" jsonschema:"one sentence on the note's topic, key points and purpose"`
	CallerSet   []string          `json:"caller_set" jsonschema:"the attributes the caller wrote (keywords, context), which amem never rewrites until given back; [] when none"`
	Metadata    map[string]string `json:"metadata,omitempty" jsonschema:"the caller's own string pairs"`

	// The note's validity at this version.
	ValidUntil   time.Time `json:"valid_until,omitzero" jsonschema:"when what the note says stopped being true (RFC 3339); absent while it held"`
	SupersededBy string    `json:"superseded_by,omitempty" jsonschema:"the note that had replaced this one"`
}

// SnapshotOf is s as clients see it.
func SnapshotOf(s amem.Snapshot) Snapshot {
	return Snapshot{Content: s.Content, EventTime: s.EventTime, Keywords: s.Keywords, Tags: s.Tags,
		CuratorTags: orEmpty(s.CuratorTags), Context: s.Context,
		CallerSet: CallerSetOf(s.CallerKeywords, s.CallerContext), Metadata: s.Metadata,
		ValidUntil: s.ValidUntil, SupersededBy: s.SupersededBy}
}

// Usage counts model tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens" jsonschema:"tokens sent to the model"`
	CompletionTokens int `json:"completion_tokens" jsonschema:"tokens the model answered with"`
}

// UsageOf is u as clients see it.
func UsageOf(u amem.Usage) Usage {
	return Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
}

// UsageTotal is the tokens of one kind of model operation, summed.
type UsageTotal struct {
	Operation        string `json:"operation" jsonschema:"the model operation: construct, connect, evolve..."`
	Calls            int    `json:"calls" jsonschema:"how many calls were made"`
	PromptTokens     int    `json:"prompt_tokens" jsonschema:"tokens sent to the model"`
	CompletionTokens int    `json:"completion_tokens" jsonschema:"tokens the model answered with"`
}

// UsageTotalOf is u as clients see it.
func UsageTotalOf(u amem.UsageTotal) UsageTotal {
	return UsageTotal{Operation: u.Operation, Calls: u.Calls, PromptTokens: u.PromptTokens,
		CompletionTokens: u.CompletionTokens}
}

// Stats describes a namespace: counts and token usage.
type Stats struct {
	Namespace  string         `json:"namespace" jsonschema:"the memory space"`
	Notes      int            `json:"notes" jsonschema:"how many notes it holds"`
	ByState    map[string]int `json:"by_state" jsonschema:"notes per enrichment state (pending, done, failed)"`
	Links      int            `json:"links" jsonschema:"how many links join its notes"`
	Embedder   string         `json:"embedder" jsonschema:"the embedder its vectors came from"`
	Dimensions int            `json:"dimensions" jsonschema:"the length of its vectors"`
	Usage      []UsageTotal   `json:"usage" jsonschema:"model tokens per operation"`
	Tokens     Usage          `json:"tokens" jsonschema:"model tokens in all"`
	// Retention is absent when the namespace has no policy.
	Retention *Retention `json:"retention,omitempty" jsonschema:"the namespace's retention policy and what it would move to the trash now; absent without a policy"`
}

// StatsOf is s as clients see it.
func StatsOf(s amem.Stats) Stats {
	var byState map[string]int
	if s.ByState != nil {
		byState = make(map[string]int, len(s.ByState))
		for state, n := range s.ByState {
			byState[string(state)] = n
		}
	}
	return Stats{
		Namespace:  s.Namespace,
		Notes:      s.Notes,
		ByState:    byState,
		Links:      s.Links,
		Embedder:   s.Embedder,
		Dimensions: s.Dimensions,
		Usage:      List(s.Usage, UsageTotalOf),
		Tokens:     UsageOf(s.Tokens),
		Retention:  retentionOf(s),
	}
}

// retentionOf is the stats' retention, nil without a policy.
func retentionOf(s amem.Stats) *Retention {
	if s.Retention.IsZero() {
		return nil
	}
	r := RetentionOf(s.Namespace, s.Retention, s.RetentionDue)
	return &r
}

// NamespaceInfo is what amem keeps about a namespace.
type NamespaceInfo struct {
	Name       string    `json:"name" jsonschema:"the namespace"`
	Embedder   string    `json:"embedder" jsonschema:"the embedder its vectors came from"`
	Dimensions int       `json:"dimensions" jsonschema:"the length of its vectors"`
	CreatedAt  time.Time `json:"created_at" jsonschema:"when the namespace was created (RFC 3339)"`
}

// NamespaceInfoOf is i as clients see it.
func NamespaceInfoOf(i amem.NamespaceInfo) NamespaceInfo {
	return NamespaceInfo{Name: i.Name, Embedder: i.Embedder, Dimensions: i.Dimensions, CreatedAt: i.CreatedAt}
}
