package enrich

import (
	"slices"
	"strings"
	"unicode"

	"github.com/amem-dev/amem"

	"github.com/amem-dev/amem/internal/words"
)

// Restatements. Re-adding a fact in other words made a second, unrelated
// note (cosine 0.98 to the first). An enrichment now recognises a new note
// whose nearest neighbour says the same thing, and records it: the first
// link of the new note goes to that neighbour, strength 1, with a reason
// that starts with RestatementReason. Both notes stay (each keeps its own
// time and metadata, and nothing is lost if the judgement is wrong); the
// link says which is the restatement of which.

// RestatementReason begins the reason of a link from a note to the older
// note it restates.
const RestatementReason = "restates"

// DefaultRestatementSimilarity is the cosine at or above which a note and
// its nearest neighbour are compared as a possible restatement. High on
// purpose: a false merge is worse than a missed one, and the facts must
// match besides (see sameFacts).
const DefaultRestatementSimilarity = 0.93

// Restates reports whether text a says what b says, the word test of a
// restatement without its cosine floor; amem-eval supersede scores it on
// labelled pairs.
func Restates(a, b string) bool { return restates(a, b) }

// restates reports whether text a says what b says: the same names,
// numbers and negations, and nearly the same content words. Vectors alone
// can't tell "I like tea" from "I don't like tea", or the 3 pm meeting
// from the 4 pm one.
func restates(a, b string) bool {
	fa, fb := factsOf(a), factsOf(b)
	if !slices.Equal(fa.numbers, fb.numbers) || fa.negated != fb.negated || fa.changed != fb.changed {
		return false
	}
	// A name of one must be a word of the other: "Caroline: ..." is not
	// "Melanie: ...", but a sentence that starts with "Dentist" may
	// restate one that says "the dentist".
	if !subset(fa.names, fb.words) || !subset(fb.names, fa.words) {
		return false
	}
	return jaccard(fa.words, fb.words) >= restateOverlap
}

// restateOverlap is the share of content words two texts must have in
// common (Jaccard): "an aisle seat" against "a window seat" shares 0.6,
// the meeting that "moved to Friday" against the one "on Friday" 0.75.
const restateOverlap = 0.8

func subset(a, sorted []string) bool {
	for _, w := range a {
		if _, ok := slices.BinarySearch(sorted, w); !ok {
			return false
		}
	}
	return true
}

type facts struct {
	names, numbers, words []string // sorted, without repeats
	negated               bool     // not, never, n't...
	changed               bool     // used to, anymore, stopped...: a state that ended
}

// changeMarkers say a state ended or began: "I used to work as a nurse"
// is not "I work as a nurse".
var changeMarkers = map[string]bool{
	"used": true, "anymore": true, "longer": true, "former": true, "formerly": true,
	"stopped": true, "quit": true, "ex": true, "previously": true, "until": true,
}

var negations = map[string]bool{
	"not": true, "no": true, "never": true, "nobody": true, "nothing": true, "none": true,
	"nor": true, "neither": true, "cannot": true, "without": true,
}

// restateStopwords are function words, left out of the content-word
// comparison.
var restateStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if so to of in on at by for with from as is are was were be been
	being am i me my mine we us our you your he him his she her it its they them their this that these those there here
	do does did have has had will would shall should can could may might must just really very also too
	about into over up out than then now what which who whom when where why how all any some each
	oh yeah yes ok okay well hey hi please i'm i've i'd i'll you're you've it's we're we've they're
	that's let's there's he's she's`) {
		restateStopwords[w] = true
	}
}

func factsOf(text string) facts {
	var f facts
	text = strings.ReplaceAll(text, "’", "'")
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		tok = strings.Trim(tok, "'")
		if tok == "" {
			continue
		}
		low := strings.ToLower(tok)
		switch {
		case strings.HasSuffix(low, "n't"):
			f.negated = true
			low = strings.TrimSuffix(low, "n't")
		case negations[low]:
			f.negated = true
		}
		if changeMarkers[low] {
			f.changed = true
		}
		if strings.ContainsFunc(tok, unicode.IsDigit) || words.Number(low) {
			f.numbers = append(f.numbers, low)
		} else if unicode.IsUpper([]rune(tok)[0]) && !restateStopwords[low] {
			// Sentence-initial words count too: a restatement that starts
			// differently is missed, which costs less than merging
			// "Caroline: ..." into "Melanie: ...".
			f.names = append(f.names, low)
		}
		if !restateStopwords[low] && !negations[low] {
			f.words = append(f.words, low)
		}
	}
	for _, s := range []*[]string{&f.names, &f.numbers, &f.words} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	return f
}

func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for _, w := range a {
		if _, ok := slices.BinarySearch(b, w); ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// restatementOf returns the candidate n restates, if any: the nearest
// candidate, when it is close enough and says the same.
func (e *Engine) restatementOf(n amem.Note, cands []amem.Candidate) (amem.Candidate, bool) {
	floor := e.c.RestatementSimilarity
	if floor < 0 || len(cands) == 0 {
		return amem.Candidate{}, false
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if c.Similarity > best.Similarity {
			best = c
		}
	}
	if best.Similarity < floor || !restates(n.Content, best.Note.Content) {
		return amem.Candidate{}, false
	}
	return best, true
}
