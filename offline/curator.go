package offline

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/amem-dev/amem"
)

// Options tune the offline curator. Fields left zero take the defaults
// given with them; a float that should really be zero is written as a tiny
// value such as 1e-9. The defaults were calibrated against Universal
// Sentence Encoder lite, the project's offline embedder (see doc.go).
// Thresholds are cosines of that model; another embedder spreads cosines
// differently and may want others.
type Options struct {
	// MaxKeywords caps the keywords Construct writes, counting the
	// caller's own (which are all kept even beyond it). Default 8.
	MaxKeywords int
	// MaxPhraseCandidates caps the candidate phrases embedded per note: the
	// cost of Construct is one embedder call over this many short texts.
	// Default 32.
	MaxPhraseCandidates int
	// PhraseCache is how many phrase vectors Construct keeps for the next
	// notes (the least recently used are dropped; 2 KB each with a
	// 512-dimension embedder): a conversation names its speakers and
	// topics again and again, and a phrase found here is not embedded
	// again. Default 2048; negative keeps none.
	PhraseCache int
	// KeywordMinRatio drops candidates scoring under this fraction of the
	// best one (names and dates are exempt). Default 0.5.
	KeywordMinRatio float64
	// KeywordDiversity is the weight of redundancy in the maximal marginal
	// relevance selection of keywords, in [0, 1). Default 0.3.
	KeywordDiversity float64

	// MaxTags caps the taxonomy tags Construct adds to the caller's own.
	// Default 3.
	MaxTags int
	// TagMinLift is the confidence a taxonomy tag needs: the note's cosine
	// to the tag's prototype less its mean cosine to all the taxonomy's. A
	// note with no tag this far above the rest gets none, and evolution
	// moves a tag only to a note it is this confident of. Default 0.21,
	// chosen on the tuning part of testdata/tags-*.jsonl (see doc.go).
	TagMinLift float64
	// TagMargin keeps a second or third tag only within this cosine of the
	// best. Default 0.04.
	TagMargin float64
	// TagMinGap is how far (in cosine) the best taxonomy tag must stand
	// above the runner-up: a note nearly tied between two tags gets
	// neither. Default 0.02, chosen with TagMinLift (see doc.go); a
	// negative gap turns the test off.
	TagMinGap float64

	// MaxLinks caps the links Connect makes. Default 5.
	MaxLinks int
	// LinkMinSimilarity is the cosine a candidate needs before anything
	// else is weighed. Default 0.35.
	LinkMinSimilarity float64
	// LinkRelativeMargin: without shared keywords, a candidate must be
	// within this cosine of the best candidate. Default 0.15.
	LinkRelativeMargin float64
	// LinkMinStrength is the combined strength a link needs. Default 0.45.
	LinkMinStrength float64
	// MutualK: a candidate is a mutual neighbour when the new note is among
	// its MutualK nearest in the candidate set. Default 3.
	MutualK int

	// EvolveKeywords caps the keywords one evolution adds to a neighbour.
	// Default 2.
	EvolveKeywords int
	// EvolveMinStrength is the link strength above which a neighbour that
	// is a mutual neighbour also takes the new note's key phrase (as a
	// keyword and in its context), not only keywords its own text
	// contains. Default 0.8.
	EvolveMinStrength float64
	// EvolveContexts caps how many neighbours, the strongest links first,
	// get the relation written into their context by one Connect: each
	// rewrite is a new version and a re-embedding. Default 2.
	EvolveContexts int
	// MaxNoteKeywords and MaxNoteTags cap a neighbour's keywords and tags:
	// evolution only appends below them. Defaults 12 and 5.
	MaxNoteKeywords int
	MaxNoteTags     int
	// MaxContextRunes bounds a context the curator writes. Default 300.
	MaxContextRunes int

	// MaxNamespaces and MaxTerms bound the corpus statistics kept in
	// memory: namespaces (least recently used are dropped) and distinct
	// terms per namespace (later new terms count as rare). Defaults 1024
	// and 50000.
	MaxNamespaces int
	MaxTerms      int

	// Logger receives debug records of the curator's decisions. Default:
	// discard.
	Logger *slog.Logger

	// Supersedes, when set, is asked of every candidate whether the new
	// note makes it no longer true (issue 30: "I'm not allergic to
	// penicillin after all" against "I'm allergic to penicillin"); ok
	// supersedes it, and reason goes into its history. It must be safe
	// for concurrent use. Default nil: the curator supersedes nothing
	// until a rule is given here (the product's, local.NewCurator, gives
	// FactSupersedes with use-lite).
	Supersedes func(note amem.Note, cand amem.Candidate) (reason string, ok bool)
}

// Defaults returns o with every zero field set to its default: the values
// a Curator made with o runs with (the evaluation records and varies them).
func (o *Options) Defaults() Options { return o.withDefaults() }

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	setInt := func(p *int, d int) {
		if *p <= 0 {
			*p = d
		}
	}
	setFloat := func(p *float64, d float64) {
		if *p == 0 {
			*p = d
		}
	}
	setInt(&v.MaxKeywords, 8)
	setInt(&v.MaxPhraseCandidates, 32)
	if v.PhraseCache == 0 {
		v.PhraseCache = 2048
	}
	setFloat(&v.KeywordMinRatio, 0.5)
	setFloat(&v.KeywordDiversity, 0.3)
	setInt(&v.MaxTags, 3)
	setFloat(&v.TagMinLift, 0.21)
	setFloat(&v.TagMargin, 0.04)
	setFloat(&v.TagMinGap, 0.02)
	setInt(&v.MaxLinks, 5)
	setFloat(&v.LinkMinSimilarity, 0.35)
	setFloat(&v.LinkRelativeMargin, 0.15)
	setFloat(&v.LinkMinStrength, 0.45)
	setInt(&v.MutualK, 3)
	setInt(&v.EvolveKeywords, 2)
	setFloat(&v.EvolveMinStrength, 0.8)
	setInt(&v.EvolveContexts, 2)
	setInt(&v.MaxNoteKeywords, 12)
	setInt(&v.MaxNoteTags, 5)
	setInt(&v.MaxContextRunes, 300)
	setInt(&v.MaxNamespaces, 1024)
	setInt(&v.MaxTerms, 50000)
	if v.Logger == nil {
		v.Logger = slog.New(slog.DiscardHandler)
	}
	v.KeywordDiversity = clamp(v.KeywordDiversity, 0, 0.95)
	return v
}

// Curator is the offline A-Mem curator. It is safe for concurrent use.
type Curator struct {
	emb    amem.Embedder
	opt    Options
	log    *slog.Logger
	stats  *statsTable
	protos prototypes
	cache  *vecCache
}

var _ amem.Curator = (*Curator)(nil)

// New returns an offline curator that embeds with emb. A nil opts means the
// documented defaults.
func New(emb amem.Embedder, opts *Options) *Curator {
	o := opts.withDefaults()
	return &Curator{
		emb:   emb,
		opt:   o,
		log:   o.Logger,
		stats: newStatsTable(o.MaxNamespaces, o.MaxTerms),
		cache: newVecCache(o.PhraseCache),
	}
}

// embedChecked calls the embedder and checks that it kept its contract, so
// a faulty embedder is an error here rather than an index panic later.
func embedChecked(ctx context.Context, emb interface {
	Embed(context.Context, []string) ([][]float32, error)
}, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vs), len(texts))
	}
	for _, v := range vs {
		if len(v) != len(vs[0]) || len(v) == 0 {
			return nil, fmt.Errorf("%w: embedder returned vectors of %d and %d dimensions",
				amem.ErrDimensionMismatch, len(vs[0]), len(v))
		}
	}
	return vs, nil
}

// Construct writes the note's keywords, tags and context. It makes one
// embedder call for the note's candidate phrases that are not in the
// phrase cache (none when all are), with its content when the note
// carries no embedding of the embedder's size; a second only if the
// note's embedding turns out to come from another model; and, once per
// Curator, one for the tag prototypes. Usage is always zero.
func (c *Curator) Construct(ctx context.Context, note amem.Note) (amem.Attributes, error) {
	if err := ctx.Err(); err != nil {
		return amem.Attributes{}, err
	}
	attrs := amem.Attributes{
		Keywords: mergeKeywords(note.Keywords, nil, 0),
		Tags:     mergeTags(note.Tags, nil),
	}
	if strings.TrimSpace(note.Content) == "" {
		return attrs, nil
	}

	r := read(note.Content, note.EventTime)
	view := c.stats.peek(note.Namespace, r.obs, r.obs.terms)
	r.analyse(view)
	embedded, dates := prune(r.candidates(4), view, c.opt.MaxPhraseCandidates)

	var texts []string
	noteVec := note.Embedding
	needNote := len(noteVec) == 0 || (c.emb.Dimensions() > 0 && len(noteVec) != c.emb.Dimensions())
	if needNote {
		texts = append(texts, note.Content)
	}
	var missed []*phrase
	for _, p := range embedded {
		if p.vec = c.cache.get(p.text); p.vec == nil {
			texts = append(texts, p.text)
			missed = append(missed, p)
		}
	}
	vs, err := embedChecked(ctx, c.emb, texts)
	if err != nil {
		return amem.Attributes{}, fmt.Errorf("offline curator: embed phrases: %w", err)
	}
	if needNote {
		noteVec, vs = vs[0], vs[1:]
	}
	for i, p := range missed {
		p.vec = vs[i]
		c.cache.put(p.text, p.vec)
	}
	if !needNote && len(embedded) > 0 && len(embedded[0].vec) != len(noteVec) {
		// The note was embedded by another model (or Dimensions lies):
		// phrase cosines to it would all be zero.
		v, err := embedChecked(ctx, c.emb, []string{note.Content})
		if err != nil {
			return amem.Attributes{}, fmt.Errorf("offline curator: embed note: %w", err)
		}
		noteVec = v[0]
	}
	protos, err := c.protos.get(ctx, c.emb)
	if err != nil {
		return amem.Attributes{}, fmt.Errorf("offline curator: %w", err)
	}
	c.stats.commit(note.Namespace, r.obs)

	picked := selectKeywords(embedded, dates, noteVec, view, keywordParams{
		max:        c.opt.MaxKeywords,
		minRatio:   c.opt.KeywordMinRatio,
		diversity:  c.opt.KeywordDiversity,
		nameBonus:  nameBonus,
		dateWeight: dateWeight,
		maxDates:   maxDates,
	})
	if r.statement {
		picked = subjectFirst(dropFragments(picked), embedded, r.subject(r.kind()))
	}
	attrs.Keywords = mergeKeywords(note.Keywords, picked, c.opt.MaxKeywords)

	var ranked []scoredTag
	if len(protos) > 0 && len(protos[0]) == len(noteVec) {
		ranked = rankTags(protos, noteVec)
	}
	chosen := chooseTags(ranked, c.opt.MaxTags, c.opt.TagMinLift, c.opt.TagMargin, c.opt.TagMinGap)
	attrs.Tags = mergeTags(note.Tags, chosen)

	// The context names a topic only when a tag was given: a guessed one
	// would mislead full-text search as a wrong tag misleads a filter.
	topTag := ""
	if len(chosen) > 0 {
		topTag = chosen[0]
	}
	if r.statement {
		attrs.Context = c.describeStatement(r, note.EventTime, topTag)
	} else {
		attrs.Context = c.describe(r, picked, note.EventTime, topTag)
	}
	if c.log.Enabled(ctx, slog.LevelDebug) {
		// Counts, not the keywords: they are the note's own words, and a
		// log (amem serve -v) is no place for what users stored.
		c.log.Debug("offline construct", "namespace", note.Namespace, "id", note.ID,
			"candidates", len(embedded)+len(dates), "keywords", len(attrs.Keywords),
			"tags", len(attrs.Tags), "tag_scores", ranked[:min(len(ranked), 4)])
	}
	return attrs, nil
}

// Observe counts a note in its namespace's statistics without constructing
// anything, and makes no embedder call. The statistics are process-local,
// so a caller that restarts can replay a namespace's existing notes,
// oldest first, to warm them up; Construct counts the notes it sees itself.
func (c *Curator) Observe(note amem.Note) {
	if strings.TrimSpace(note.Content) == "" {
		return
	}
	r := read(note.Content, note.EventTime)
	r.analyse(c.stats.peek(note.Namespace, r.obs, r.obs.terms))
	c.stats.commit(note.Namespace, r.obs)
}

// mergeTags puts the caller's tags first and adds the chosen ones missing
// from them.
func mergeTags(given, chosen []string) []string {
	out := make([]string, 0, len(given)+len(chosen))
	seen := map[string]bool{}
	for _, list := range [][]string{given, chosen} {
		for _, t := range list {
			t = strings.TrimSpace(t)
			if t == "" || seen[strings.ToLower(t)] {
				continue
			}
			seen[strings.ToLower(t)] = true
			out = append(out, t)
		}
	}
	return out
}

// contextPhrases is how many keyphrases the context names. The paper
// embeds content, context, keywords and tags together, so every keyphrase
// repeated in the context counts twice; on LoCoMo with USE-lite, naming one
// retrieved evidence better than naming two or three (recall@10 0.45 vs
// 0.43, all three development conversations).
const contextPhrases = 1

// describe writes the note's context: one sentence saying who talks about
// what, when, and under which broad topic, e.g. "On 8 May 2023, Caroline
// talks to Melanie about LGBTQ support group, mentioning 7 May 2023
// (community)." It uses the extracted keyphrases rather than the
// caller's keywords, which describe the note from outside.
func (c *Curator) describe(r *reading, picked []*phrase, eventTime time.Time, tag string) string {
	var about []string
	mention := ""
	day := ""
	if !eventTime.IsZero() {
		day = eventTime.Format(dateLayout)
	}
	for _, p := range picked {
		switch {
		case p.date:
			if mention == "" && p.text != day {
				mention = p.text
			}
		case len(about) < contextPhrases && !strings.EqualFold(p.text, r.speaker):
			about = append(about, p.text)
		}
	}

	to := ""
	if len(r.addressees) > 0 {
		to = " to " + listJoin(r.addressees)
	}
	var b strings.Builder
	if day != "" && r.speaker != "" {
		b.WriteString("On " + day + ", ")
	}
	switch {
	case len(about) > 0 && r.speaker != "":
		b.WriteString(r.speaker + " talks" + to + " about " + listJoin(about))
	case len(about) > 0:
		b.WriteString("About " + listJoin(about))
	case r.speaker != "":
		b.WriteString(r.speaker + " says" + to + " \u201c" + truncateWords(r.body, 80) + "\u201d")
	default:
		b.WriteString("A note: \u201c" + truncateWords(r.body, 80) + "\u201d")
	}
	if mention != "" {
		b.WriteString(", mentioning " + mention)
	}
	if day != "" && r.speaker == "" {
		b.WriteString(", noted on " + day)
	}
	if tag != "" {
		b.WriteString(" (" + tag + ")")
	}
	s := b.String()
	if utf8.RuneCountInString(s) > c.opt.MaxContextRunes-1 {
		s = truncateWords(s, c.opt.MaxContextRunes-1)
	}
	return s + "."
}

// listJoin writes "a", "a and b", "a, b and c".
func listJoin(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
