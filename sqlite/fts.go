package sqlite

import (
	"strings"
	"unicode"
)

// maxQueryTerms bounds how many words of a query reach the full-text index,
// so that a pasted document costs a bounded OR query.
const maxQueryTerms = 64

// ftsQuery turns arbitrary user text into an FTS5 query that matches notes
// holding any of its words: `"w1" OR "w2" ...`. The text never reaches
// MATCH as syntax: it is split into runs of letters, digits and marks (what
// the unicode61 tokenizer keeps), so quotes, operators (AND, OR, NOT, NEAR),
// column filters, '*', '^', '-' and parentheses are only separators, and
// each word is a quoted string, which FTS5 reads as a phrase, never as an
// operator. It returns "" when the text has no words.
func ftsQuery(text string) string {
	terms := queryTerms(text)
	if len(terms) == 0 {
		return ""
	}
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(t) // holds no '"': see isWordRune
		b.WriteByte('"')
	}
	return b.String()
}

// queryTerms returns the distinct lowercased words of text, in order, at
// most maxQueryTerms of them. Invalid UTF-8 decodes to U+FFFD, a separator.
func queryTerms(text string) []string {
	var terms []string
	seen := make(map[string]bool)
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		f = strings.ToLower(f)
		if seen[f] {
			continue
		}
		seen[f] = true
		terms = append(terms, f)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return terms
}

// isWordRune reports whether r is part of a word: the unicode61 tokenizer's
// token characters (categories L*, N* and Co) plus combining marks, which
// remove_diacritics folds away.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}
