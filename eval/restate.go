package eval

// A copy of the restatement decision of enrich/restate.go (restates and
// what it reads), so that amem-eval supersede can score it on the same
// pairs as facts.Supersedes without a store or a curator: the engine
// does not export it. TestRestateCopyInStep fails when the two differ, so
// the figures are the engine's rule's. (internal/words is imported under
// another name because package eval has a func words.)

import (
	"slices"
	"strings"
	"unicode"

	wordlist "github.com/amem-dev/amem/internal/words"
)

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
		if strings.ContainsFunc(tok, unicode.IsDigit) || wordlist.Number(low) {
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
