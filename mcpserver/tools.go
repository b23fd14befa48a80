package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/wire"
)

// Tool outputs are package wire's shapes, the HTTP API's: an agent reads
// a note as any other client does, never with its embedding. Their
// schemas are published as the tools' output schemas.

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
	Keywords []string          `json:"keywords,omitempty" jsonschema:"keywords to keep as they are: amem then writes none (they are yours, see caller_set); leave out to let amem write them"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"tags (broad categories) to keep; amem adds its own"`
	Context  string            `json:"context,omitempty" jsonschema:"a one-sentence context to keep as it is: amem never rewrites it (see caller_set); leave out to let amem write it"`
	Metadata map[string]string `json:"metadata,omitempty" jsonschema:"string pairs kept with the memory as they are, such as its source or speaker; search_memory can filter by them"`
	Wait     bool              `json:"wait,omitempty" jsonschema:"true: return once amem has written keywords, tags, context and links (slower); false (default): return as soon as the memory is stored and searchable"`
	nsArg
}

type searchInput struct {
	Query     string            `json:"query" jsonschema:"what to recall, in words: a question, a topic or a name"`
	K         int               `json:"k,omitempty" jsonschema:"how many direct hits to return (linked notes come on top)"`
	Mode      string            `json:"mode,omitempty" jsonschema:"hybrid: meaning and exact words; vector: meaning only; lexical: exact words (names, numbers, rare terms)"`
	Tags      []string          `json:"tags,omitempty" jsonschema:"only notes with every one of these tags, in any case"`
	TagSource string            `json:"tag_source,omitempty" jsonschema:"which of a note's tags the tags match: caller (only tags the caller gave, never the ones amem guessed), curator (only the ones amem added) or any (default)"`
	From      string            `json:"from,omitempty" jsonschema:"only notes from this time on: RFC 3339 (2023-05-08T13:56:00Z) or a date (2023-05-08, midnight UTC)"`
	To        string            `json:"to,omitempty" jsonschema:"only notes from before this time: RFC 3339 or a date (midnight UTC)"`
	Metadata  map[string]string `json:"metadata,omitempty" jsonschema:"only notes whose metadata holds every one of these pairs, exactly"`
	MinScore  *float64          `json:"min_score,omitempty" jsonschema:"leave out direct hits whose score (relevance, 0 to 1) is below this; 0 keeps every hit; default: the floor measured for the server's embedder (0.03 for the offline default, else 0)"`

	// What was true when (docs/SEARCH.md, "What is true now").
	AsOf              string `json:"as_of,omitempty" jsonschema:"answer with what was current at this time, RFC 3339 or a date: notes said after it are left out, and a note counts as superseded only if it was by then; default: now"`
	ExcludeSuperseded bool   `json:"exclude_superseded,omitempty" jsonschema:"true: leave out notes no longer true (a result's superseded_by names the note that replaced it); false (default): a superseded note comes right below the note that replaced it"`
	nsArg
}

type updateInput struct {
	idArg
	Content  *string   `json:"content,omitempty" jsonschema:"the new text; amem rewrites the note's keywords and context and links it again"`
	Time     *string   `json:"time,omitempty" jsonschema:"when it was said or happened, RFC 3339 or a date"`
	Keywords *[]string `json:"keywords,omitempty" jsonschema:"replaces the keywords, which become yours: amem no longer rewrites them; [] clears them"`
	Tags     *[]string `json:"tags,omitempty" jsonschema:"replaces the tags; [] clears them"`
	Context  *string   `json:"context,omitempty" jsonschema:"replaces the one-sentence context, which becomes yours: amem no longer rewrites it"`
	GiveBack []string  `json:"give_back,omitempty" jsonschema:"keywords and/or context: hand them back to amem, which rewrites them now and from then on"`
	Reason   string    `json:"reason,omitempty" jsonschema:"why the note changes, kept in its history"`

	// The user's word on whether the note is still true.
	Validity *validityInput `json:"validity,omitempty" jsonschema:"whether the note is still true, as the user says (amem's curator never overrides it): {} restores it to current; superseded_by names the note that replaced it; valid_until ends it without a replacement"`
}

// validityInput is update_memory's validity, as REST's PATCH takes it.
type validityInput struct {
	SupersededBy string `json:"superseded_by,omitempty" jsonschema:"the ID of the note that replaced this one"`
	ValidUntil   string `json:"valid_until,omitempty" jsonschema:"when it stopped being true, RFC 3339 or a date; default: the replacing note's time"`
}

// Tools. Their descriptions are what a model reads to choose and call them.

var addTool = &mcp.Tool{
	Name: "add_memory",
	Description: "Store a memory in amem, an agentic memory (A-Mem). Give one self-contained fact, event, preference " +
		"or decision per call, with names and dates written out: it is read later without the conversation around it. " +
		"amem makes it a note: it writes keywords, tags and a one-sentence context, links the note to related earlier " +
		"notes and updates those notes' context and tags (memory evolution). Set time when the memory is about an " +
		"earlier moment. The call returns as soon as the note is stored and searchable, with enrichment state \"pending\" " +
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
	dropNull(s)
	return s
}

// dropNull makes every ["null", T] in s, nested schemas included, plain T.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		s.Type, s.Types = s.Types[1-i], nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
}

// outputSchema is the schema generated for Out with every ["null", T],
// nested ones included, written as anyOf null or T: outputs do hold null
// lists, and some clients refuse a tool whose schemas hold a list of
// types anywhere.
func outputSchema[Out any]() *jsonschema.Schema {
	s, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("tool output schema of %T: %v", *new(Out), err)) // a bug in Out, found by any test
	}
	nullAsAnyOf(s)
	return s
}

func nullAsAnyOf(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for _, p := range s.Properties {
		nullAsAnyOf(p)
	}
	nullAsAnyOf(s.Items)
	nullAsAnyOf(s.AdditionalProperties)
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		value := *s
		value.Type, value.Types, value.Description = s.Types[1-i], nil, ""
		*s = jsonschema.Schema{Description: s.Description, AnyOf: []*jsonschema.Schema{{Type: "null"}, &value}}
	}
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
	ms := s.Properties["min_score"]
	ms.Minimum, ms.Maximum = new(0.0), new(1.0)
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
		"lists. Keywords or a context you give are yours (caller_set): amem never rewrites them until you give_back. " +
		"New content makes amem rewrite the note's other keywords and context and choose its links again. Every change " +
		"is kept as a new version (see memory_history): give a reason. When the user says a remembered fact is no " +
		"longer true, give validity: {superseded_by: the ID of the note that replaced it} (searches then list the " +
		"old note below the new one), or {} to make a note current again.",
	InputSchema: inputSchema[updateInput](),
	Annotations: &mcp.ToolAnnotations{Title: "Update a memory", DestructiveHint: new(true), OpenWorldHint: new(false)},
}

var deleteTool = &mcp.Tool{
	Name: "delete_memory",
	Description: "Delete a note by ID, with every link touching it and its whole history: it is gone from search and " +
		"reads at once, and kept in the namespace's trash for a while (30 days by default), from which a person can " +
		"restore it. To correct a note, use update_memory instead.",
	Annotations: &mcp.ToolAnnotations{Title: "Delete a memory", DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)},
}

var linksTool = &mcp.Tool{
	Name: "memory_links",
	Description: "List the notes linked to a note, strongest link first: each linked note as get_memory returns it " +
		"(content, time, keywords, tags, context...), with the link: its source (the note that chose it when it was " +
		"enriched), target, strength (0 to 1) and reason.",
	Annotations: &mcp.ToolAnnotations{Title: "List a memory's links", ReadOnlyHint: true, OpenWorldHint: new(false)},
}

var historyTool = &mcp.Tool{
	Name: "memory_history",
	Description: "List every version of a note, oldest first: who changed it (user; construct: amem wrote its keywords, " +
		"tags and context; evolve: a related new note updated it; restore; import), why, each changed field's old " +
		"and new value, and the note as the version left it.",
	Annotations: &mcp.ToolAnnotations{Title: "Show a memory's history", ReadOnlyHint: true, OpenWorldHint: new(false)},
}

// Handlers. ns is the namespace the call resolved to and may reach.

func (t *tools) add(ctx context.Context, ns string, in addInput) (wire.Note, error) {
	req := amem.AddRequest{Namespace: ns, Content: in.Content, Keywords: in.Keywords, Tags: in.Tags,
		Context: in.Context, Metadata: in.Metadata, Wait: in.Wait}
	if in.Time != "" {
		at, err := amem.ParseTime(in.Time)
		if err != nil {
			return wire.Note{}, err
		}
		// A time given must be one a note can hold: the zero time would
		// otherwise be taken for "now".
		if err := amem.ValidEventTime(at); err != nil {
			return wire.Note{}, err
		}
		req.EventTime = at
	}
	n, err := t.mem.Add(ctx, req)
	if err != nil {
		return wire.Note{}, err
	}
	return wire.NoteOf(n), nil
}

func (t *tools) search(ctx context.Context, ns string, in searchInput) (wire.ResultList, error) {
	f, err := amem.ParseFilter(in.From, in.To, in.Tags, nil)
	if err != nil {
		return wire.ResultList{}, err
	}
	f.Metadata = in.Metadata
	if f.TagSource, err = amem.ParseTagSource(in.TagSource); err != nil {
		return wire.ResultList{}, fmt.Errorf("tag_source: %w", err)
	}
	minScore := t.mem.SuggestedMinScore()
	if in.MinScore != nil {
		minScore = *in.MinScore
	}
	req := amem.SearchRequest{Namespace: ns, Query: in.Query, K: in.K, Mode: amem.SearchMode(in.Mode), Filter: f, MinScore: minScore,
		ExcludeSuperseded: in.ExcludeSuperseded}
	if in.AsOf != "" {
		if req.AsOf, err = amem.ParseTime(in.AsOf); err != nil {
			return wire.ResultList{}, fmt.Errorf("as_of: %w", err)
		}
	}
	rs, err := t.mem.Search(ctx, req)
	if err != nil {
		return wire.ResultList{}, err
	}
	return wire.ResultList{Results: wire.Items(rs, wire.ResultOf)}, nil
}

func (t *tools) get(ctx context.Context, ns string, in idArg) (wire.Note, error) {
	n, err := t.mem.Get(ctx, ns, in.ID)
	if err != nil {
		return wire.Note{}, err
	}
	return wire.NoteOf(n), nil
}

func (t *tools) update(ctx context.Context, ns string, in updateInput) (wire.Note, error) {
	if in.Content == nil && in.Time == nil && in.Keywords == nil && in.Tags == nil && in.Context == nil && in.Validity == nil && len(in.GiveBack) == 0 {
		return wire.Note{}, fmt.Errorf("%w: nothing to change: give content, time, keywords, tags, context, validity or give_back", amem.ErrInvalid)
	}
	req := amem.UpdateRequest{Content: in.Content, Keywords: in.Keywords, Tags: in.Tags, Context: in.Context, Reason: in.Reason}
	for _, a := range in.GiveBack {
		req.GiveBack = append(req.GiveBack, amem.Attribute(a))
	}
	if v := in.Validity; v != nil {
		req.Validity = &amem.Validity{SupersededBy: v.SupersededBy}
		if v.ValidUntil != "" {
			at, err := amem.ParseTime(v.ValidUntil)
			if err != nil {
				return wire.Note{}, fmt.Errorf("valid_until: %w", err)
			}
			req.Validity.Until = at
		}
	}
	if in.Time != nil {
		at, err := amem.ParseTime(*in.Time)
		if err != nil {
			return wire.Note{}, err
		}
		req.EventTime = &at
	}
	n, err := t.mem.Update(ctx, ns, in.ID, req)
	if err != nil {
		return wire.Note{}, err
	}
	return wire.NoteOf(n), nil
}

func (t *tools) delete(ctx context.Context, ns string, in idArg) (wire.Deleted, error) {
	if err := t.mem.Delete(ctx, ns, in.ID); err != nil {
		return wire.Deleted{}, err
	}
	return wire.Deleted{Deleted: in.ID}, nil
}

func (t *tools) links(ctx context.Context, ns string, in idArg) (wire.NeighborList, error) {
	nbs, err := t.mem.Links(ctx, ns, in.ID)
	if err != nil {
		return wire.NeighborList{}, err
	}
	return wire.NeighborList{Links: wire.Items(nbs, wire.NeighborOf)}, nil
}

func (t *tools) history(ctx context.Context, ns string, in idArg) (wire.VersionList, error) {
	vs, err := t.mem.History(ctx, ns, in.ID)
	if err != nil {
		return wire.VersionList{}, err
	}
	return wire.VersionList{Versions: wire.Items(vs, wire.VersionOf)}, nil
}
