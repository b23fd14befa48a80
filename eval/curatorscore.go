package eval

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The matching rules of the curator set (testdata/curator/LABELLING.md
// states them for people). A phrase matches where it stands whole: the
// characters either side of it are not letters or digits. A labelled
// phrase with a capital letter matches case-sensitively ("Lena" is not
// "lena"); an all-lower-case one matches in any case ("check-up" matches
// "Check-up" at a sentence start).

// phraseSpans returns where p occurs whole in text, as byte ranges.
func phraseSpans(p, text string, foldCase bool) [][2]int {
	if p == "" {
		return nil
	}
	hay, needle := text, p
	if foldCase {
		hay, needle = strings.ToLower(text), strings.ToLower(p)
		if len(hay) != len(text) {
			// A rune whose lower case is another length: match as written.
			hay, needle = text, p
		}
	}
	var out [][2]int
	for from := 0; ; {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return out
		}
		a, b := from+i, from+i+len(needle)
		if !wordRuneBefore(text, a) && !wordRuneAt(text, b) {
			out = append(out, [2]int{a, b})
		}
		from = a + 1
	}
}

func wordRuneBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func wordRuneAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func hasUpper(s string) bool { return strings.IndexFunc(s, unicode.IsUpper) >= 0 }

// labelIn reports whether the labelled phrase l occurs whole in text.
func labelIn(l, text string) bool { return len(phraseSpans(l, text, !hasUpper(l))) > 0 }

// sameLabel reports whether a keyword k is the labelled phrase l.
func sameLabel(k, l string) bool {
	if hasUpper(l) {
		return k == l
	}
	return strings.EqualFold(k, l)
}

// sentenceStartsLowered is text with the first letter of every sentence
// lowered, so that a keyword "check-up" is found in "Check-up is at 3".
func sentenceStartsLowered(text string) string {
	var b strings.Builder
	start := true
	for _, r := range text {
		switch {
		case start && unicode.IsLetter(r):
			b.WriteRune(unicode.ToLower(r))
			start = false
		case strings.ContainsRune(".!?;:\n", r):
			b.WriteRune(r)
			start = true
		default:
			if !unicode.IsSpace(r) && !strings.ContainsRune("\"'(“‘", r) {
				start = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// keywordRight says whether a keyword the curator wrote for n is right:
// it is one of n's labelled keywords, or it stands in the text as
// written (a sentence's first letter may be lowered) without cutting a
// labelled keyword ("Dr" of "Dr. Okafor") and without lowering a name
// ("lena" for "Lena").
func keywordRight(k string, n CuratorNote) bool {
	for _, l := range n.Keywords {
		if sameLabel(k, l) {
			return true
		}
	}
	spans := phraseSpans(k, n.Content, false)
	if lowered := sentenceStartsLowered(n.Content); len(spans) == 0 && len(lowered) == len(n.Content) {
		spans = phraseSpans(k, lowered, false)
	}
	if len(spans) == 0 {
		return false
	}
	for _, w := range strings.Fields(k) {
		if strings.ToLower(w) != w {
			continue
		}
		for _, l := range append(slices.Clone(n.Keywords), n.Subject...) {
			for _, lw := range strings.Fields(l) {
				if lw != w && strings.EqualFold(lw, w) && hasUpper(lw) {
					return false
				}
			}
		}
	}
	// A fragment: every occurrence of k overlaps a labelled keyword's
	// occurrence without holding all of it.
	for _, s := range spans {
		if !cutsLabel(s, n) {
			return true
		}
	}
	return false
}

func cutsLabel(s [2]int, n CuratorNote) bool {
	for _, l := range n.Keywords {
		for _, t := range phraseSpans(l, n.Content, !hasUpper(l)) {
			overlap := s[0] < t[1] && t[0] < s[1]
			holds := s[0] <= t[0] && t[1] <= s[1]
			if overlap && !holds {
				return true
			}
		}
	}
	return false
}

// recalled says whether a labelled keyword l is among the keywords: one
// of them is l, or holds l whole with at most two more words ("new
// billing service" holds "billing service"; a keyword of a whole
// sentence holds nothing).
func recalled(l string, keywords []string) bool {
	for _, k := range keywords {
		if sameLabel(k, l) {
			return true
		}
		if labelIn(l, k) && len(strings.Fields(k)) <= len(strings.Fields(l))+2 {
			return true
		}
	}
	return false
}

// subjectRight says whether a context names n's subject before anything
// else labelled: of n's subject phrases and keywords, the one the context
// names first (the longer at the same place) must be a subject phrase.
// Dates, times and amounts say when and how much, never who or what, so
// keywords that start with a digit, a currency sign or "the", or with a
// month or weekday name, do not compete.
func subjectRight(context string, n CuratorNote) bool {
	bestSubject, bestAt, bestLen := false, -1, 0
	consider := func(p string, subject bool) {
		if s := phraseSpans(p, context, !hasUpper(p)); len(s) > 0 {
			at, n := s[0][0], s[0][1]-s[0][0]
			if bestAt < 0 || at < bestAt || (at == bestAt && n > bestLen) {
				bestSubject, bestAt, bestLen = subject, at, n
			}
		}
	}
	for _, p := range n.Subject {
		consider(p, true)
	}
	for _, k := range n.Keywords {
		if !slices.Contains(n.Subject, k) && !whenOrAmount(k) {
			consider(k, false)
		}
	}
	return bestSubject
}

var calendarWords = toWordSet(`january february march april may june july august september october
november december monday tuesday wednesday thursday friday saturday sunday mondays tuesdays
wednesdays thursdays fridays saturdays sundays christmas easter`)

func toWordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func whenOrAmount(k string) bool {
	r, _ := utf8.DecodeRuneInString(k)
	if unicode.IsDigit(r) || unicode.Is(unicode.Sc, r) || strings.HasPrefix(k, "the ") {
		return true
	}
	first, _, _ := strings.Cut(strings.ToLower(k), " ")
	return calendarWords[first]
}

// kindRight says whether a context states n's kind: of the five kind
// words, the first it uses as a whole word is n's.
func kindRight(context string, n CuratorNote) bool {
	first, at := "", -1
	for _, k := range curatorKinds {
		if s := phraseSpans(k, context, true); len(s) > 0 && (at < 0 || s[0][0] < at) {
			first, at = k, s[0][0]
		}
	}
	return first == n.Kind
}
