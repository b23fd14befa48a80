package conversation

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/amem-dev/amem/lexindex"
)

// What the ranker's features read of a question: its terms as the
// full-text index weighs them, the names it mentions, and what it asks
// for (features.go crosses that with what each note carries).

// question is what the features read of the query.
type question struct {
	terms []lexindex.QueryTerm
	idf   float64 // the terms' idf summed
	// names are its capitalised words' terms, a word each, lowercased
	// and distinct, in order; nil for a word a term of which no note
	// holds (no note names it).
	names [][]lexindex.QueryTerm
	// lookup is terms, then every name's terms: what a note is asked
	// about (lexindex.Index.Where).
	lookup []lexindex.QueryTerm
	kind   questionKind
}

type questionKind uint8

const (
	asksWhen questionKind = 1 << iota
	asksWho
	asksWhere
	asksHowMany
	asksWhy
)

// questionWords are capitalised at a question's start, never names.
var questionWords = map[string]bool{
	"what": true, "when": true, "where": true, "who": true, "whom": true, "whose": true, "why": true,
	"how": true, "which": true, "did": true, "does": true, "do": true, "is": true, "was": true,
	"are": true, "were": true, "has": true, "have": true, "can": true, "would": true, "could": true,
	"will": true, "should": true, "in": true, "on": true, "according": true, "i": true,
}

func readQuestion(lex *lexindex.Index, q string) question {
	var out question
	out.terms = lex.QueryTerms(q)
	for _, t := range out.terms {
		out.idf += t.IDF
	}
	lower := " " + strings.ToLower(q) + " "
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	if has(" when ", " what year", " what month", " what date", " what day", " what time", " how long ago") {
		out.kind |= asksWhen
	}
	if has(" who ", " whom ", " whose ") {
		out.kind |= asksWho
	}
	if has(" where ") {
		out.kind |= asksWhere
	}
	if has(" how many ", " how much ", " how long ", " how often ") {
		out.kind |= asksHowMany
	}
	if has(" why ") {
		out.kind |= asksWhy
	}
	out.lookup = slices.Clip(out.terms)
	var seen []string
	for w := range strings.FieldsSeq(q) {
		word := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		word = strings.TrimSuffix(strings.TrimSuffix(word, "'s"), "’s")
		r, _ := utf8.DecodeRuneInString(word)
		lw := strings.ToLower(word)
		if word == "" || !unicode.IsUpper(r) || questionWords[lw] || slices.Contains(seen, lw) {
			continue
		}
		seen = append(seen, lw)
		terms, all := lex.Terms(lw)
		if !all {
			terms = nil
		}
		out.names = append(out.names, terms)
		out.lookup = append(out.lookup, terms...)
	}
	return out
}
