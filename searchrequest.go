package amem

import (
	"fmt"
	"time"
)

// The search's request and results, and the names of its modes,
// profiles and link orders: the domain's, which package search (the
// pipeline) reads under its own names.

// SearchMode chooses how direct hits are found.
type SearchMode string

const (
	// SearchVector ranks notes by cosine of their embedding to the query's.
	SearchVector SearchMode = "vector"
	// SearchLexical ranks notes by BM25 over content, context, keywords
	// and tags.
	SearchLexical SearchMode = "lexical"
	// SearchHybrid reads both rankings and orders their notes as the
	// namespace's profile says: by relevance in the general profile; by
	// the conversation profile's order there. The default.
	SearchHybrid SearchMode = "hybrid"
)

// Scored is a note ID with a score, higher is better.
type Scored struct {
	ID    string
	Score float64
}

// Profile is what hybrid search ranks by, for the shape of memory a
// namespace holds.
//
// The general profile suits any memory (facts, preferences, decisions,
// notes, dialogue): the vector and full-text rankings are read to a fixed
// depth and their notes ordered by relevance, which weighs how close each
// note is to the query in meaning and in words.
//
// The conversation profile suits a namespace of dialogue turns
// ("Speaker: text"), where the answer to a question is often the reply
// to the turn the question matches: package search/conversation orders
// its candidates with the reply and feedback rankings and a learned
// ranker trained on LoCoMo conversations. On other memories these
// signals cost: the note written after a match is not its answer.
type Profile string

const (
	// ProfileAuto picks the conversation profile for a namespace at least
	// half of whose notes are turns ("Speaker: text"; at least two), and
	// the general profile for any other.
	ProfileAuto         Profile = "auto"
	ProfileGeneral      Profile = "general"
	ProfileConversation Profile = "conversation"
)

// ProfileInfo says which profile a namespace's searches use, and why.
type ProfileInfo struct {
	Profile Profile `json:"profile"`
	// Auto is set when the profile was chosen by what the namespace
	// holds (ProfileAuto), not set by the options or the request.
	Auto bool `json:"auto"`
	// Turns of the namespace's Notes are dialogue turns.
	Turns int `json:"turns"`
	Notes int `json:"notes"`
}

// Reason explains the choice in a sentence.
func (p ProfileInfo) Reason() string {
	if !p.Auto {
		return fmt.Sprintf("%s: set explicitly", p.Profile)
	}
	return fmt.Sprintf("%s: %d of %d notes are dialogue turns (\"Speaker: text\"); the conversation profile is chosen from half", p.Profile, p.Turns, p.Notes)
}

// LinkOrder is where linked notes go in a context list.
type LinkOrder string

const (
	// LinksAfter lists every direct hit, then the linked notes. On LoCoMo
	// (development split, offline curator) linked notes were evidence for
	// 1.2% of places against 2.8% for direct hits 6-10, so interleaving
	// them pushed better direct hits out of the first k: recall@10 0.451
	// interleaved against 0.601 after.
	LinksAfter LinkOrder = "after"
	// LinksInterleaved puts each direct hit's linked notes right after it.
	LinksInterleaved LinkOrder = "interleaved"
)

// MaxK bounds a search's K.
const MaxK = 1000

// DefaultNamespace is the namespace of a caller that names none (the CLI,
// an MCP client without one).
const DefaultNamespace = "default"

// SearchRequest is a query. Namespace and Query are required.
type SearchRequest struct {
	Namespace string
	Query     string
	// K is the number of direct hits (default 10, at most MaxK).
	K int
	// Mode defaults to SearchHybrid.
	Mode   SearchMode
	Filter Filter
	// LinksPerHit and LinkBudget override Options.Search's for this
	// search; zero means the options' value, negative disables linked
	// notes.
	LinksPerHit int
	LinkBudget  int
	// LinkOrder overrides Options.Search.LinkOrder.
	LinkOrder LinkOrder
	// NoRanker keeps the conversation profile in fusion's order, without
	// Options.Search.Ranker.
	NoRanker bool
	// Profile overrides Options.Search.Profile (hybrid mode).
	Profile Profile
	// MinScore drops the direct hits whose Score, their relevance in
	// [0, 1], is below it; the search still returns up to K of those
	// above. 0 keeps every hit.
	MinScore float64
	// AsOf, when set, answers with what was current then: notes whose
	// event time is after it are left out, and a supersession counts only
	// if the note's validity ended by then. Zero is now.
	AsOf time.Time
	// ExcludeSuperseded leaves out the notes no longer true (at AsOf, or
	// now); otherwise a superseded note is listed right after the note
	// that superseded it.
	ExcludeSuperseded bool
}

// ResultKind says why a note is in the results.
type ResultKind string

const (
	Direct ResultKind = "direct" // a hit for the query
	Linked ResultKind = "linked" // linked to a direct hit
)

// Result is one note of the context list. Clients get it as package
// wire's Result.
type Result struct {
	// Note is the note without its embedding (nil): reading 2 KB of
	// vector per hit was a third of a search's time at 1M notes, and no
	// client shape carries it; Get returns it.
	Note Note
	// Score is a direct hit's relevance, in [0, 1] in every mode, and a
	// linked note's link strength.
	Score float64
	Kind  ResultKind
	// Via is the direct hit a linked note came through.
	Via string
}

// MaxFilterTerms bounds a search filter's tags and metadata pairs
// together. Every candidate note is tested against each of them, so the
// bound keeps one request's cost in proportion; a person or an agent
// narrows a search with a few.
const MaxFilterTerms = 64
