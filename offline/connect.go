package offline

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/amem-dev/amem"
)

// Evidence weights of Connect. They are deliberately small next to the
// cosine: lexical and temporal evidence should reorder close calls and
// rescue a paraphrase, not link notes whose meaning differs.
const (
	nameWeight    = 0.10 // per shared proper noun, times its rarity
	keywordWeight = 0.06 // per other shared keyword, times its rarity
	lexicalCap    = 0.20 // the most lexical evidence adds in all
	mutualWeight  = 0.05 // added for a mutual neighbour, taken for a hub
	sameDayWeight = 0.05
	nearDayWeight = 0.02 // within three days
)

// relationMarker separates a context's own clause from the relation that
// evolution appends; only the latest relation is kept.
const relationMarker = "; related to "

// keyword is one of the new note's keywords, prepared for matching.
type keyword struct {
	text  string
	words []string
	name  bool
	date  bool
}

// relDateRE matches the relative dates Construct writes ("the week before
// 8 May 2023", "2 weeks before 8 May 2023").
var relDateRE = regexp.MustCompile(`^(the \S+ (before|after|of)|\d+ weeks? before) `)

func prepareKeywords(kws []string) []keyword {
	out := make([]keyword, 0, len(kws))
	for _, k := range kws {
		toks := tokenize(k)
		if len(toks) == 0 {
			continue
		}
		kw := keyword{text: k}
		for _, t := range toks {
			kw.words = append(kw.words, t.lower)
		}
		if relDateRE.MatchString(k) {
			kw.date = true
		} else if ds := findDates(toks, time.Time{}); len(ds) == 1 && ds[0].start == 0 && ds[0].end == len(toks) {
			kw.date = true
		}
		if !kw.date {
			for _, t := range toks {
				if t.capital {
					kw.name = true
					break
				}
			}
		}
		out = append(out, kw)
	}
	return out
}

// scored is one candidate as Connect weighs it.
type scored struct {
	cand     *amem.Candidate
	sim      float64
	strength float64
	shared   []string
	mutual   int // 1 mutual, -1 not, 0 unknown
	time     string
	words    []string // the candidate's content less any speaker, lower-cased
}

// Connect chooses links among the candidates and plans their evolution.
// A candidate is linked when its cosine passes LinkMinSimilarity; it is
// within LinkRelativeMargin of the best candidate or shares keywords with
// the note; it is a mutual neighbour, shares keywords or is the best
// candidate; and its combined strength (cosine plus lexical,
// mutual-neighbour and time evidence) passes LinkMinStrength. At most
// MaxLinks are made, strongest first. Links and evolutions only ever name
// candidates; duplicates and the note itself are ignored. The only embedder
// call, once per Curator, embeds the tag prototypes. Usage is always zero.
func (c *Curator) Connect(ctx context.Context, note amem.Note, candidates []amem.Candidate) (amem.Decision, error) {
	if err := ctx.Err(); err != nil {
		return amem.Decision{}, err
	}
	dec := amem.Decision{Links: []amem.LinkDecision{}, Evolve: []amem.Evolution{}}
	seen := map[string]bool{note.ID: true}
	var cs []*scored
	for i := range candidates {
		cd := &candidates[i]
		if cd.Note.ID == "" || seen[cd.Note.ID] {
			c.log.Debug("offline connect: candidate ignored", "id", cd.Note.ID)
			continue
		}
		seen[cd.Note.ID] = true
		cs = append(cs, &scored{cand: cd, sim: clamp(cd.Similarity, -1, 1)})
	}
	if len(cs) == 0 {
		return dec, nil
	}

	kws := prepareKeywords(note.Keywords)
	view := c.stats.peek(note.Namespace, observation{}, keywordWords(kws))
	best := cs[0].sim
	for _, s := range cs {
		best = max(best, s.sim)
	}
	c.markMutual(cs)
	var linked []*scored
	for _, s := range cs {
		_, body := splitSpeaker(s.cand.Note.Content)
		s.words = lowerWords(body)
		lex := c.lexical(s, kws, view)
		s.strength = s.sim + lex + mutualWeight*float64(s.mutual) + timeBonus(s, note.EventTime)
		s.strength = clamp(s.strength, 0, 1)
		// A hub (close to many other candidates, so the new note isn't
		// among its nearest) is linked only on lexical evidence or when it
		// is the best there is.
		eligible := s.sim >= c.opt.LinkMinSimilarity &&
			(s.sim >= best-c.opt.LinkRelativeMargin || len(s.shared) > 0) &&
			(s.mutual >= 0 || len(s.shared) > 0 || s.sim >= best)
		if eligible && s.strength >= c.opt.LinkMinStrength {
			linked = append(linked, s)
		}
	}
	slices.SortStableFunc(linked, func(a, b *scored) int {
		if c := cmp.Compare(b.strength, a.strength); c != 0 {
			return c
		}
		if c := cmp.Compare(b.sim, a.sim); c != 0 {
			return c
		}
		return cmp.Compare(a.cand.Note.ID, b.cand.Note.ID)
	})
	if len(linked) > c.opt.MaxLinks {
		linked = linked[:c.opt.MaxLinks]
	}

	var protos [][]float32
	if needPrototypes(note, linked) {
		var err error
		if protos, err = c.protos.get(ctx, c.emb); err != nil {
			return amem.Decision{}, fmt.Errorf("offline curator: %w", err)
		}
	}
	for i, s := range linked {
		dec.Links = append(dec.Links, amem.LinkDecision{
			Target:   s.cand.Note.ID,
			Reason:   reason(s),
			Strength: round3(s.strength),
		})
		if ev, ok := c.evolve(note, kws, s, protos, i < c.opt.EvolveContexts); ok {
			dec.Evolve = append(dec.Evolve, ev)
		}
	}
	dec.Note = c.strengthen(note, linked, protos)
	dec.Supersede = c.supersede(note, cs)
	c.log.Debug("offline connect", "namespace", note.Namespace, "id", note.ID,
		"candidates", len(cs), "links", len(dec.Links), "evolve", len(dec.Evolve))
	return dec, nil
}

func keywordWords(kws []keyword) []string {
	var out []string
	for _, k := range kws {
		out = append(out, k.words...)
	}
	return out
}

func lowerWords(s string) []string {
	toks := tokenize(s)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.lower
	}
	return out
}

// markMutual approximates mutual nearest neighbours inside the candidate
// set: candidate j is mutual when fewer than MutualK other candidates are
// closer to j than the new note is. A candidate close to everything (a
// hub: "Hey, how are you?") is then not mutual, and loses a little. With
// too few embedded candidates every one would be mutual, which says
// nothing, so they stay unknown.
func (c *Curator) markMutual(cs []*scored) {
	var withVec []*scored
	for _, s := range cs {
		if len(s.cand.Note.Embedding) > 0 {
			withVec = append(withVec, s)
		}
	}
	if len(withVec) <= c.opt.MutualK {
		return
	}
	for _, s := range withVec {
		closer := 0
		for _, o := range withVec {
			if o != s && len(o.cand.Note.Embedding) == len(s.cand.Note.Embedding) &&
				cosine(s.cand.Note.Embedding, o.cand.Note.Embedding) > s.sim {
				closer++
			}
		}
		if closer < c.opt.MutualK {
			s.mutual = 1
		} else {
			s.mutual = -1
		}
	}
}

// lexical finds the new note's keywords that the candidate has in its text
// (less any speaker prefix) or among its own leading keywords, records them
// in s.shared, and returns their weight: proper nouns count most, each
// scaled by its rarity in the namespace so a name every note mentions
// counts for little. Keywords that evolution appended are not matched:
// they came from other notes, and matching them would let one topic spread
// link by link through the whole graph.
func (c *Curator) lexical(s *scored, kws []keyword, v termView) float64 {
	have := map[string]bool{}
	own := s.cand.Note.Keywords[:min(len(s.cand.Note.Keywords), c.opt.MaxKeywords)]
	for _, k := range own {
		have[strings.ToLower(strings.TrimSpace(k))] = true
	}
	w := 0.0
	for _, k := range kws {
		if !have[strings.ToLower(k.text)] && !containsRun(s.words, k.words) {
			continue
		}
		s.shared = append(s.shared, k.text)
		rarity := 1.0
		if len(k.words) > 0 {
			rarity = 0
			for _, x := range k.words {
				rarity += v.idf(x)
			}
			rarity /= float64(len(k.words))
		}
		if k.name {
			w += nameWeight * rarity
		} else {
			w += keywordWeight * rarity
		}
	}
	return min(w, lexicalCap)
}

// timeBonus rewards notes from the same day (one conversation session,
// usually) and, less, from within three days.
func timeBonus(s *scored, t time.Time) float64 {
	u := s.cand.Note.EventTime
	if t.IsZero() || u.IsZero() {
		return 0
	}
	u = u.In(t.Location())
	y1, m1, d1 := t.Date()
	y2, m2, d2 := u.Date()
	switch {
	case y1 == y2 && m1 == m2 && d1 == d2:
		s.time = "same day"
		return sameDayWeight
	case t.Sub(u).Abs() <= 72*time.Hour:
		s.time = "within 3 days"
		return nearDayWeight
	}
	return 0
}

// reason says why a link was made, e.g. "shares 'Caroline', 'adoption';
// cosine 0.71; mutual neighbours; same day".
func reason(s *scored) string {
	var parts []string
	if len(s.shared) > 0 {
		q := make([]string, 0, 3)
		for _, k := range s.shared[:min(len(s.shared), 3)] {
			q = append(q, "'"+k+"'")
		}
		parts = append(parts, "shares "+strings.Join(q, ", "))
	}
	parts = append(parts, fmt.Sprintf("cosine %.2f", s.sim))
	if s.mutual > 0 {
		parts = append(parts, "mutual neighbours")
	}
	if s.time != "" {
		parts = append(parts, s.time)
	}
	return strings.Join(parts, "; ")
}

func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}

// needPrototypes reports whether evolution or strengthening could add a
// tag, which is the only part of Connect that needs the tag prototypes
// (and so, once per Curator, the embedder).
func needPrototypes(note amem.Note, linked []*scored) bool {
	if len(linked) >= 2 && len(note.Embedding) > 0 {
		return true
	}
	if len(linked) == 0 || len(note.Tags) == 0 {
		return false
	}
	for _, s := range linked {
		if len(s.cand.Note.Embedding) > 0 {
			return true
		}
	}
	return false
}

// confidentTags are the taxonomy tags the curator is confident of for
// vec, best first, however many there are: the lift Construct asks for,
// without its limits on how far below the best a second tag may be and
// on how far above the runner-up the best must stand (TagMinGap): where
// linked notes agree on a tag, they settle what a near tie leaves open.
// None without prototypes or for a vector of another model.
func (c *Curator) confidentTags(protos [][]float32, vec []float32) []string {
	if len(protos) == 0 || len(vec) != len(protos[0]) {
		return nil
	}
	return chooseTags(rankTags(protos, vec), len(protos), c.opt.TagMinLift, math.Inf(1), 0)
}

// evolve plans what a linked neighbour takes from the new note. It only
// ever appends, below the caps, so a neighbour's own leading keywords and
// tags stay as they were and notes don't converge on one vocabulary:
//   - keywords: the new note's keywords that the neighbour's own text
//     contains (always), then for a strong link the new note's leading
//     keyword; at most EvolveKeywords, never dates (they belong to the new
//     note's event, not the neighbour's);
//   - tags: one of the new note's taxonomy tags that the neighbour's
//     embedding also fits;
//   - context, for a strong link among the EvolveContexts strongest: its
//     own first clause plus "; related to <the new note's key phrase>
//     (<date>)", replacing any earlier relation so it can't grow without
//     bound, and rewriting few neighbours so one note doesn't cost many
//     versions and re-embeddings.
func (c *Curator) evolve(note amem.Note, kws []keyword, s *scored, protos [][]float32, mayRelate bool) (amem.Evolution, bool) {
	nb := s.cand.Note
	strong := s.strength >= c.opt.EvolveMinStrength && s.mutual >= 0
	ev := amem.Evolution{Target: nb.ID}
	var did []string

	have := map[string]bool{}
	for _, k := range nb.Keywords {
		have[strings.ToLower(strings.TrimSpace(k))] = true
	}
	var add []string
	room := min(c.opt.EvolveKeywords, c.opt.MaxNoteKeywords-len(nb.Keywords))
	consider := func(k keyword) {
		if len(add) < room && !k.date && !have[strings.ToLower(k.text)] {
			have[strings.ToLower(k.text)] = true
			add = append(add, k.text)
		}
	}
	for _, k := range kws {
		if containsRun(s.words, k.words) {
			consider(k)
		}
	}
	if strong {
		// Only the new note's leading phrase: more would make neighbours
		// converge on the vocabulary of whatever was said last.
		for _, k := range kws {
			if !k.date {
				consider(k)
				break
			}
		}
	}
	if len(add) > 0 {
		ev.Keywords = append(slices.Clone(nb.Keywords), add...)
		did = append(did, "adds keywords "+quoteList(add))
	}

	if len(nb.Tags) < c.opt.MaxNoteTags {
		// The neighbour takes a tag only if the curator is as confident of
		// it for the neighbour's own embedding as Construct must be: a link
		// is no evidence of a topic, and a loose test would let a
		// neighbour collect every tag of every note that links to it.
		fits := c.confidentTags(protos, nb.Embedding)
		for _, t := range note.Tags {
			if slices.ContainsFunc(nb.Tags, func(x string) bool { return strings.EqualFold(x, t) }) {
				continue
			}
			if slices.Contains(fits, t) {
				ev.Tags = append(slices.Clone(nb.Tags), t)
				did = append(did, "adds tag '"+t+"'")
				break
			}
		}
	}

	if strong && mayRelate {
		if ctx, ok := c.relate(nb, kws, note.EventTime); ok {
			ev.Context = &ctx
			did = append(did, "notes the relation in its context")
		}
	}
	if len(did) == 0 {
		return amem.Evolution{}, false
	}
	ev.Reason = "linked from " + note.ID + ": " + strings.Join(did, "; ")
	return ev, true
}

// relate rewrites a neighbour's context as its own first clause plus the
// relation to the new note, and reports whether that changes it.
func (c *Curator) relate(nb amem.Note, kws []keyword, when time.Time) (string, bool) {
	have := map[string]bool{}
	for _, k := range nb.Keywords {
		have[strings.ToLower(k)] = true
	}
	rel := ""
	for _, k := range kws {
		if k.date {
			continue
		}
		if rel == "" {
			rel = k.text // fallback: the key phrase even if shared
		}
		if !have[strings.ToLower(k.text)] {
			rel = k.text
			break
		}
	}
	if rel == "" {
		return "", false
	}
	if !when.IsZero() {
		rel += " (" + when.Format(dateLayout) + ")"
	}
	base := strings.TrimSpace(nb.Context)
	if i := strings.Index(base, relationMarker); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRight(base, ". ")
	var out string
	if base == "" {
		out = "Related to " + truncateWords(rel, c.opt.MaxContextRunes/2) + "."
	} else {
		rel = truncateWords(rel, c.opt.MaxContextRunes/3)
		room := c.opt.MaxContextRunes - utf8.RuneCountInString(relationMarker+rel+".")
		out = truncateWords(base, room) + relationMarker + rel + "."
	}
	return out, out != nb.Context
}

// strengthen adds to the new note's tags a taxonomy tag that at least two
// of its three strongest neighbours share and it lacks: the paper's
// "strengthen" step, bounded to one tag and MaxNoteTags. The note's own
// embedding must be confident of the tag too, as for any curator tag;
// the neighbours' agreement lifts the limit of MaxTags and TagMargin, not
// the confidence. Nil when nothing changes.
func (c *Curator) strengthen(note amem.Note, linked []*scored, protos [][]float32) *amem.Attributes {
	if len(linked) < 2 || len(note.Tags) >= c.opt.MaxNoteTags {
		return nil
	}
	fits := c.confidentTags(protos, note.Embedding)
	counts := map[string]int{}
	var order []string
	for _, s := range linked[:min(len(linked), 3)] {
		for i, t := range s.cand.Note.Tags {
			if !slices.Contains(fits, t) || slices.Contains(note.Tags, t) || slices.Contains(s.cand.Note.Tags[:i], t) {
				continue
			}
			if counts[t] == 0 {
				order = append(order, t)
			}
			counts[t]++
		}
	}
	bestTag := ""
	for _, t := range order {
		if counts[t] >= 2 && (bestTag == "" || counts[t] > counts[bestTag]) {
			bestTag = t
		}
	}
	if bestTag == "" {
		return nil
	}
	return &amem.Attributes{
		Keywords: slices.Clone(note.Keywords),
		Tags:     append(slices.Clone(note.Tags), bestTag),
		Context:  note.Context,
	}
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "'" + x + "'"
	}
	return strings.Join(q, ", ")
}
