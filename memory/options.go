package memory

import (
	"log/slog"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/kernel"

	"go.opentelemetry.io/otel/trace"
)

// Options configure a Memory. A nil *Options means all defaults; each zero
// field means its default.
type Options struct {
	// Embedder makes the vectors. Required: the root package has no
	// default model (package local wires the offline default).
	Embedder amem.Embedder

	// Curator makes the A-Mem decisions. Nil means no curator: notes keep
	// only caller-given attributes, get no links and are marked done.
	Curator amem.Curator

	// Logger receives warnings such as dropped curator output. Default:
	// slog.Default().
	Logger *slog.Logger

	// Now is the clock (default time.Now); tests inject a fixed one.
	Now func() time.Time

	// TracerProvider makes the spans of Add, enrichment and Search
	// (tracing.go). Nil means the global one, otel.GetTracerProvider(),
	// which records nothing until a program installs an SDK.
	TracerProvider trace.TracerProvider

	// EmbedText builds the text that is embedded for a note. Default:
	// EmbedTextPaper, the paper's Eq. 3 (content, context, keywords, tags).
	EmbedText func(amem.Note) string

	// MaxContentBytes bounds a note's content (default 32 KiB).
	MaxContentBytes int

	// Search are the search's knobs: the linked notes' policy, hybrid
	// search's fusion weights, day spread, ranker and profile, and the
	// relevance curves (SearchOptions).
	Search SearchOptions

	// TrashFor is how long Delete keeps a note in the trash (Trash)
	// before it is deleted for good, over a store with amem.Trasher.
	// Default DefaultTrashFor (30 days); negative turns the trash off, so
	// that Delete deletes for good.
	TrashFor time.Duration

	// Enrich are the enrichment's knobs: the candidates shown to the
	// curator, restatements, background mode (Async), retries, claim
	// leases, the OnEnrich hook (package enrich).
	Enrich enrich.Options

	// Indexes are the in-process indexes' knobs: the memory budget, when
	// a namespace is searched approximately and how, and where the
	// indexes are saved (package kernel).
	Indexes kernel.Options
}

// SearchOptions are Search's knobs, Options.Search. Each zero field means
// its default (WithDefaults); a SearchRequest overrides some of them for
// one search (LinksPerHit, LinkBudget, LinkOrder, Profile, NoRanker).
// They live here rather than in package search because the ranker's type
// is package search/conversation's, which imports search.
type SearchOptions struct {
	// LinksPerHit and LinkBudget set the retrieval policy: after the direct
	// hits, each direct hit (in rank order) brings up to LinksPerHit of its
	// strongest linked notes, until LinkBudget linked notes are in the
	// context. Defaults: 3 per hit, budget equal to k. A negative value
	// disables linked notes.
	LinksPerHit int
	LinkBudget  int

	// LinkOrder places the linked notes in the context list: LinksAfter
	// (default) puts all direct hits first, then the linked notes in the
	// order of the hits that brought them; LinksInterleaved puts each
	// hit's linked notes right after it.
	LinkOrder amem.LinkOrder

	// LexicalWeight is the weight of the full-text ranking against the
	// vector ranking (weight 1) in hybrid search's reciprocal rank fusion.
	// Default 1. A weak embedder wants more: with the offline sentence
	// model, 3 gave the best LoCoMo recall in each conversation measured
	// (package local sets it).
	LexicalWeight float64
	// ReplyWeight, FeedbackWeight and DenseFeedbackWeight weigh three
	// more rankings in the conversation profile's fusion (package
	// search/conversation): the notes written right after the first hits
	// (a conversation's replies), a full-text search of the first hits'
	// keywords, and a vector search of the mean of their embeddings
	// (pseudo-relevance feedback on either side). Default 0: off.
	ReplyWeight         float64
	FeedbackWeight      float64
	DenseFeedbackWeight float64
	// DaySpread, in [0, 1), spreads hybrid search's hits over the days
	// they were said (package search/conversation): each hit's fused
	// score is multiplied by 1 - DaySpread for every better hit from the
	// same day. Default 0: off.
	DaySpread float64
	// Ranker re-orders hybrid search's first candidates by a learned
	// score (package search/conversation), in the conversation profile.
	// Default nil: fusion's order. Package local sets the weights
	// trained on LoCoMo's development split. A day spread, when on, takes
	// the ranker's place: the ranker was trained without it.
	Ranker *Ranker

	// Profile is hybrid search's profile (amem.Profile) when a request
	// names none. Default ProfileAuto: conversation for a namespace of
	// dialogue turns, general for any other. The reply and feedback
	// rankings, the day spread and the ranker above serve the
	// conversation profile only.
	Profile amem.Profile

	// Relevance turns what a search measured of each hit into its Score
	// (search.Relevance). Default DefaultRelevance.
	Relevance *Relevance
}

// Defaults.
const (
	DefaultCandidates      = enrich.DefaultCandidates
	DefaultMaxContentBytes = 32 << 10
	DefaultLinksPerHit     = 3
)

// EmbedTextPaper joins content, context, keywords and tags, the text the
// A-Mem paper embeds (Eq. 3). Empty parts are left out.
func EmbedTextPaper(n amem.Note) string {
	parts := []string{n.Content}
	if n.Context != "" {
		parts = append(parts, n.Context)
	}
	if len(n.Keywords) > 0 {
		parts = append(parts, strings.Join(n.Keywords, ", "))
	}
	if len(n.Tags) > 0 {
		parts = append(parts, strings.Join(n.Tags, ", "))
	}
	return strings.Join(parts, "\n")
}

// EmbedTextContent embeds the content alone.
func EmbedTextContent(n amem.Note) string { return n.Content }

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.Logger == nil {
		v.Logger = slog.Default()
	}
	if v.Now == nil {
		v.Now = time.Now
	}
	if v.TrashFor == 0 {
		v.TrashFor = DefaultTrashFor
	}
	if v.EmbedText == nil {
		v.EmbedText = EmbedTextPaper
	}
	if v.MaxContentBytes <= 0 {
		v.MaxContentBytes = DefaultMaxContentBytes
	}
	v.Search = v.Search.WithDefaults()
	v.Enrich = v.Enrich.WithDefaults()
	v.Indexes = v.Indexes.WithDefaults()
	return v
}

// WithDefaults returns o with each zero field set to its default:
// LinksPerHit DefaultLinksPerHit, LinkOrder LinksAfter, LexicalWeight 1
// (a zero or negative weight), Profile ProfileAuto, Relevance
// DefaultRelevance. LinkBudget stays 0, k at each search; the reply and
// feedback weights, the day spread and the ranker stay off.
func (o SearchOptions) WithDefaults() SearchOptions {
	if o.LinkOrder == "" {
		o.LinkOrder = amem.LinksAfter
	}
	if o.LinksPerHit == 0 {
		o.LinksPerHit = DefaultLinksPerHit
	}
	if o.LexicalWeight <= 0 {
		o.LexicalWeight = 1
	}
	if o.Relevance == nil {
		o.Relevance = &DefaultRelevance
	}
	if o.Profile == "" {
		o.Profile = amem.ProfileAuto
	}
	return o
}
