package amem

import (
	"time"

	"github.com/amem-dev/amem/search"
)

// The search's request and results. The modes, profiles and link orders
// are package search's (the pipeline), under the names amem has always
// given them.

// SearchMode chooses how direct hits are found: search.Vector, .Lexical
// or .Hybrid (the default).
type SearchMode = search.Mode

const (
	SearchVector  = search.Vector
	SearchLexical = search.Lexical
	SearchHybrid  = search.Hybrid
)

// Scored is a note ID with a score, higher is better.
type Scored = search.Hit

// Profile is hybrid search's profile (search.Profile): general, or
// conversation for a namespace of dialogue turns.
type Profile = search.Profile

const (
	ProfileAuto         = search.ProfileAuto
	ProfileGeneral      = search.ProfileGeneral
	ProfileConversation = search.ProfileConversation
)

// ProfileInfo says which profile a namespace's searches use, and why.
type ProfileInfo = search.ProfileInfo

// LinkOrder is where linked notes go in a context list.
type LinkOrder = search.LinkOrder

const (
	LinksAfter       = search.LinksAfter
	LinksInterleaved = search.LinksInterleaved
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
