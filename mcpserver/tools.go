package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem"
)

// Tool outputs. They are the tools' structured results (and, as JSON, their
// text content); their schemas are published as the tools' output schemas.

// Summary is what every tool shows of a note.
type Summary struct {
	ID        string    `json:"id" jsonschema:"the note's ID"`
	Content   string    `json:"content" jsonschema:"the memory as it was stored"`
	EventTime time.Time `json:"event_time" jsonschema:"when it was said or happened (RFC 3339)"`
	Keywords  []string  `json:"keywords" jsonschema:"salient words, most salient first"`
	Tags      []string  `json:"tags" jsonschema:"broad categories"`
	Context   string    `json:"context" jsonschema:"one sentence on the note's topic, key points and purpose, written by amem"`
}

// Edge is a link seen from one of its notes.
type Edge struct {
	Direction string  `json:"direction" jsonschema:"out: this note chose the link when it was enriched; in: the other note chose it"`
	Strength  float64 `json:"strength" jsonschema:"0 to 1, higher is more closely related"`
	Reason    string  `json:"reason,omitempty" jsonschema:"why the notes are linked"`
}

// Link is one link of a note, naming the note at its other end.
type Link struct {
	NoteID string `json:"note_id" jsonschema:"the note at the other end of the link"`
	Edge
}

// Note is a whole note: add_memory, get_memory and update_memory return it.
type Note struct {
	Summary
	Namespace       string `json:"namespace"`
	Links           []Link `json:"links" jsonschema:"every link touching the note; memory_links shows the linked notes"`
	Enrichment      string `json:"enrichment" jsonschema:"pending: stored and searchable, keywords, tags, context and links still to come; done; failed: see enrichment_error (the note is kept)"`
	EnrichmentError string `json:"enrichment_error,omitempty"`
	Version         int    `json:"version" jsonschema:"1 for the note as added, one more for each change"`
}

// Result is one note of a search.
type Result struct {
	Summary
	Kind  string  `json:"kind" jsonschema:"direct: matches the query; linked: linked to a direct hit"`
	Score float64 `json:"score" jsonschema:"direct: relevance, higher is better; linked: the link's strength"`
	Via   string  `json:"via,omitempty" jsonschema:"for a linked note, the direct hit it is linked to"`
}

// SearchOutput is search_memory's result.
type SearchOutput struct {
	Results []Result `json:"results" jsonschema:"the direct hits, best first, then the notes linked to them"`
}

// Neighbor is a note linked to the one asked about.
type Neighbor struct {
	Summary
	Edge
}

// LinksOutput is memory_links's result.
type LinksOutput struct {
	Links []Neighbor `json:"links" jsonschema:"the linked notes, strongest link first"`
}

// Version is one entry of a note's history.
type Version struct {
	Version int                `json:"version"`
	Actor   string             `json:"actor" jsonschema:"who changed the note: user, construct (amem wrote keywords, tags and context), evolve (a related new note updated it), restore or import"`
	Reason  string             `json:"reason,omitempty"`
	Changes []amem.FieldChange `json:"changes" jsonschema:"each changed field with its old and new value, as JSON"`
	At      time.Time          `json:"at"`
}

// HistoryOutput is memory_history's result.
type HistoryOutput struct {
	Versions []Version `json:"versions" jsonschema:"every version, oldest first"`
}

// DeleteOutput is delete_memory's result.
type DeleteOutput struct {
	Deleted string `json:"deleted" jsonschema:"the ID of the deleted note"`
}

func summaryOf(n amem.Note) Summary {
	return Summary{ID: n.ID, Content: n.Content, EventTime: n.EventTime, Keywords: n.Keywords, Tags: n.Tags, Context: n.Context}
}

func edgeOf(l amem.Link, self string) Edge {
	dir := "out"
	if l.Target == self {
		dir = "in"
	}
	return Edge{Direction: dir, Strength: l.Strength, Reason: l.Reason}
}

func noteOf(n amem.Note) Note {
	links := make([]Link, len(n.Links))
	for i, l := range n.Links {
		links[i] = Link{NoteID: l.Other(n.ID), Edge: edgeOf(l, n.ID)}
	}
	return Note{
		Summary: summaryOf(n), Namespace: n.Namespace, Links: links,
		Enrichment: string(n.Enrichment.State), EnrichmentError: n.Enrichment.Error, Version: n.Version,
	}
}

// Tool inputs. Every tool takes an optional namespace.

type nsArg struct {
	Namespace string `json:"namespace,omitempty" jsonschema:"the memory space, e.g. a user or a project (letters, digits and . _ - : @); nothing crosses namespaces. Omit it for the default"`
}

func (a nsArg) namespace() string { return a.Namespace }

type idArg struct {
	ID string `json:"id" jsonschema:"the note's ID (26 characters), as add_memory or search_memory returned it"`
	nsArg
}

type addInput struct {
	Content  string            `json:"content" jsonschema:"the memory: one self-contained fact, event, preference or decision, with names and dates written out"`
	Time     string            `json:"time,omitempty" jsonschema:"when it was said or happened, RFC 3339 (2023-05-08T13:56:00Z) or a date (2023-05-08); default now"`
	Keywords []string          `json:"keywords,omitempty" jsonschema:"keywords to keep; amem adds its own"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"tags (broad categories) to keep; amem adds its own"`
	Metadata map[string]string `json:"metadata,omitempty" jsonschema:"string pairs kept with the memory as they are, such as its source or speaker; search_memory can filter by them"`
	Wait     bool              `json:"wait,omitempty" jsonschema:"true: return once amem has written keywords, tags, context and links (slower); false (default): return as soon as the memory is stored and searchable"`
	nsArg
}

type searchInput struct {
	Query    string            `json:"query" jsonschema:"what to recall, in words: a question, a topic or a name"`
	K        int               `json:"k,omitempty" jsonschema:"how many direct hits to return (linked notes come on top)"`
	Mode     string            `json:"mode,omitempty" jsonschema:"hybrid: meaning and exact words; vector: meaning only; lexical: exact words (names, numbers, rare terms)"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"only notes with every one of these tags, in any case"`
	From     string            `json:"from,omitempty" jsonschema:"only notes from this time on: RFC 3339 (2023-05-08T13:56:00Z) or a date (2023-05-08, midnight UTC)"`
	To       string            `json:"to,omitempty" jsonschema:"only notes from before this time: RFC 3339 or a date (midnight UTC)"`
	Metadata map[string]string `json:"metadata,omitempty" jsonschema:"only notes whose metadata holds every one of these pairs, exactly"`
	nsArg
}

type updateInput struct {
	idArg
	Content  *string   `json:"content,omitempty" jsonschema:"the new text; amem rewrites the note's keywords and context and links it again"`
	Time     *string   `json:"time,omitempty" jsonschema:"when it was said or happened, RFC 3339 or a date"`
	Keywords *[]string `json:"keywords,omitempty" jsonschema:"replaces the keywords; [] clears them"`
	Tags     *[]string `json:"tags,omitempty" jsonschema:"replaces the tags; [] clears them"`
	Context  *string   `json:"context,omitempty" jsonschema:"replaces the one-sentence context"`
	Reason   string    `json:"reason,omitempty" jsonschema:"why the note changes, kept in its history"`
}

// Tools. Their descriptions are what a model reads to choose and call them.

var addTool = &mcp.Tool{
	Name: "add_memory",
	Description: "Store a memory in amem, an agentic memory (A-Mem). Give one self-contained fact, event, preference " +
		"or decision per call, with names and dates written out: it is read later without the conversation around it. " +
		"amem makes it a note: it writes keywords, tags and a one-sentence context, links the note to related earlier " +
		"notes and updates those notes' context and tags (memory evolution). Set time when the memory is about an " +
		"earlier moment. The call returns as soon as the note is stored and searchable, with enrichment \"pending\" " +
		"while amem works in the background; set wait to get the finished note with its links.",
	InputSchema: inputSchema[addInput](),
	// Not destructive: evolution rewrites neighbours' context and tags, but
	// as new versions that memory_history shows and amem restore undoes.
	Annotations: &mcp.ToolAnnotations{Title: "Add a memory", DestructiveHint: new(false), OpenWorldHint: new(false)},
}

const defaultK = 10

func searchTool() *mcp.Tool {
	return &mcp.Tool{
		Name: "search_memory",
		Description: "Recall memories by meaning and by words. Returns the k best matching notes (kind \"direct\", best " +
			"first) followed by notes linked to them (kind \"linked\"): related memories the query did not match, such " +
			"as the earlier or later part of a story. Each result has the note's content, time, keywords, tags and " +
			"context. Search before answering anything that may depend on earlier conversations, facts or preferences. " +
			"tags, from, to and metadata narrow the search to the notes that pass all of them (at most " +
			strconv.Itoa(amem.MaxFilterTerms) + " tags and metadata pairs together).",
		InputSchema: searchSchema(),
		Annotations: &mcp.ToolAnnotations{Title: "Search memories", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}
}

// inputSchema is the schema generated for In without the "null" it allows
// lists and pointers: some clients refuse a list of types, and leaving a
// field out already says "not given".
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool input schema of %T: %v", *new(In), err)) // a bug in In, found by any test
	}
	for _, p := range s.Properties {
		if i := slices.Index(p.Types, "null"); i >= 0 && len(p.Types) == 2 {
			p.Type, p.Types = p.Types[1-i], nil
		}
	}
	return s
}

// searchSchema is the generated schema with the bounds and choices the
// struct tags cannot express, so that a model sees them before calling.
func searchSchema() *jsonschema.Schema {
	s := inputSchema[searchInput]()
	k := s.Properties["k"]
	k.Minimum, k.Maximum = new(1.0), new(float64(amem.MaxK))
	k.Default = json.RawMessage(strconv.Itoa(defaultK))
	mode := s.Properties["mode"]
	mode.Enum = []any{string(amem.SearchHybrid), string(amem.SearchVector), string(amem.SearchLexical)}
	mode.Default = json.RawMessage(strconv.Quote(string(amem.SearchHybrid)))
	return s
}

var getTool = &mcp.Tool{
	Name: "get_memory",
	Description: "Get one note by ID: its content, time, keywords, tags, context, enrichment state, version and links " +
		"(the linked notes' IDs, strength and reason; memory_links returns their content).",
	Annotations: &mcp.ToolAnnotations{Title: "Get a memory", ReadOnlyHint: true, OpenWorldHint: new(false)},
}

var updateTool = &mcp.Tool{
	Name: "update_memory",
	Description: "Correct or change a note by ID. Give only the fields to change; keywords and tags replace the old " +
		"lists. New content makes amem rewrite the note's keywords and context and choose its links again. Every change " +
		"is kept as a new version (see memory_history): give a reason.",
	InputSchema: inputSchema[updateInput](),
	Annotations: &mcp.ToolAnnotations{Title: "Update a memory", DestructiveHint: new(true), OpenWorldHint: new(false)},
}

var deleteTool = &mcp.Tool{
	Name: "delete_memory",
	Description: "Delete a note by ID, with every link touching it and its whole history. It cannot be undone; to " +
		"correct a note, use update_memory instead.",
	Annotations: &mcp.ToolAnnotations{Title: "Delete a memory", DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)},
}

var linksTool = &mcp.Tool{
	Name: "memory_links",
	Description: "List the notes linked to a note, strongest link first: each linked note's content, time, keywords, " +
		"tags and context, with the link's strength (0 to 1), reason and direction (out: this note chose the link; " +
		"in: a later note linked to it).",
	Annotations: &mcp.ToolAnnotations{Title: "List a memory's links", ReadOnlyHint: true, OpenWorldHint: new(false)},
}

var historyTool = &mcp.Tool{
	Name: "memory_history",
	Description: "List every version of a note, oldest first: who changed it (user; construct: amem wrote its keywords, " +
		"tags and context; evolve: a related new note updated it; restore; import), why, and each changed field's old " +
		"and new value.",
	Annotations: &mcp.ToolAnnotations{Title: "Show a memory's history", ReadOnlyHint: true, OpenWorldHint: new(false)},
}

// Handlers. ns is the namespace the call resolved to and may reach.

func (t *tools) add(ctx context.Context, ns string, in addInput) (Note, error) {
	req := amem.AddRequest{Namespace: ns, Content: in.Content, Keywords: in.Keywords, Tags: in.Tags,
		Metadata: in.Metadata, Wait: in.Wait}
	if in.Time != "" {
		at, err := amem.ParseTime(in.Time)
		if err != nil {
			return Note{}, err
		}
		// A time given must be one a note can hold: the zero time would
		// otherwise be taken for "now".
		if err := amem.ValidEventTime(at); err != nil {
			return Note{}, err
		}
		req.EventTime = at
	}
	n, err := t.mem.Add(ctx, req)
	if err != nil {
		return Note{}, err
	}
	return noteOf(n), nil
}

func (t *tools) search(ctx context.Context, ns string, in searchInput) (SearchOutput, error) {
	f, err := amem.ParseFilter(in.From, in.To, in.Tags, nil)
	if err != nil {
		return SearchOutput{}, err
	}
	f.Metadata = in.Metadata
	rs, err := t.mem.Search(ctx, amem.SearchRequest{Namespace: ns, Query: in.Query, K: in.K, Mode: amem.SearchMode(in.Mode), Filter: f})
	if err != nil {
		return SearchOutput{}, err
	}
	out := SearchOutput{Results: make([]Result, len(rs))}
	for i, r := range rs {
		out.Results[i] = Result{Summary: summaryOf(r.Note), Kind: string(r.Kind), Score: r.Score, Via: r.Via}
	}
	return out, nil
}

func (t *tools) get(ctx context.Context, ns string, in idArg) (Note, error) {
	n, err := t.mem.Get(ctx, ns, in.ID)
	if err != nil {
		return Note{}, err
	}
	return noteOf(n), nil
}

func (t *tools) update(ctx context.Context, ns string, in updateInput) (Note, error) {
	if in.Content == nil && in.Time == nil && in.Keywords == nil && in.Tags == nil && in.Context == nil {
		return Note{}, fmt.Errorf("%w: nothing to change: give content, time, keywords, tags or context", amem.ErrInvalid)
	}
	req := amem.UpdateRequest{Content: in.Content, Keywords: in.Keywords, Tags: in.Tags, Context: in.Context, Reason: in.Reason}
	if in.Time != nil {
		at, err := amem.ParseTime(*in.Time)
		if err != nil {
			return Note{}, err
		}
		req.EventTime = &at
	}
	n, err := t.mem.Update(ctx, ns, in.ID, req)
	if err != nil {
		return Note{}, err
	}
	return noteOf(n), nil
}

func (t *tools) delete(ctx context.Context, ns string, in idArg) (DeleteOutput, error) {
	if err := t.mem.Delete(ctx, ns, in.ID); err != nil {
		return DeleteOutput{}, err
	}
	return DeleteOutput{Deleted: in.ID}, nil
}

func (t *tools) links(ctx context.Context, ns string, in idArg) (LinksOutput, error) {
	nbs, err := t.mem.Links(ctx, ns, in.ID)
	if err != nil {
		return LinksOutput{}, err
	}
	out := LinksOutput{Links: make([]Neighbor, len(nbs))}
	for i, nb := range nbs {
		out.Links[i] = Neighbor{Summary: summaryOf(nb.Note), Edge: edgeOf(nb.Link, in.ID)}
	}
	return out, nil
}

func (t *tools) history(ctx context.Context, ns string, in idArg) (HistoryOutput, error) {
	vs, err := t.mem.History(ctx, ns, in.ID)
	if err != nil {
		return HistoryOutput{}, err
	}
	out := HistoryOutput{Versions: make([]Version, len(vs))}
	for i, v := range vs {
		out.Versions[i] = Version{Version: v.Version, Actor: string(v.Actor), Reason: v.Reason, Changes: v.Changes, At: v.CreatedAt}
	}
	return out, nil
}
