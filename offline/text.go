package offline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word or number of a note's text.
type token struct {
	text  string // surface form, a possessive "'s" removed
	lower string
	// sentStart: first token of a sentence, where capitals say nothing.
	sentStart bool
	// broken: punctuation other than a joiner separates it from the token
	// before, so no phrase spans the two.
	broken  bool
	capital bool // first letter upper case
	acronym bool // two or more letters, all upper case ("LGBTQ", "NYC")
	number  bool // starts with a digit
	// possessive: a trailing "'s" was removed.
	possessive bool
}

// tokenize splits text into tokens. Apostrophes and hyphens inside words
// and '.', ',', ':', '/' inside numbers join (don't, self-care, 3.5, 10:30,
// 2023-05-08); sentence punctuation and line breaks start a new sentence;
// any other symbol breaks phrases.
func tokenize(text string) []token {
	var toks []token
	sentStart, broken := true, true
	runes := []rune(text)
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) }
	for i := 0; i < len(runes); {
		r := runes[i]
		if !isWord(r) {
			switch r {
			case '.', '!', '?', ';', '\n', '…':
				sentStart, broken = true, true
			default:
				if !unicode.IsSpace(r) {
					broken = true
				}
			}
			i++
			continue
		}
		j := i + 1
		for j < len(runes) {
			if isWord(runes[j]) {
				j++
				continue
			}
			if j+1 < len(runes) && isWord(runes[j+1]) {
				c, prev, next := runes[j], runes[j-1], runes[j+1]
				joins := false
				switch c {
				case '\'', '’', '-', '‐':
					joins = true
				case '.', ',', ':', '/':
					joins = unicode.IsDigit(prev) && unicode.IsDigit(next)
				}
				if joins {
					j += 2
					continue
				}
			}
			break
		}
		w := string(runes[i:j])
		w = strings.ReplaceAll(w, "’", "'")
		possessive := false
		if (strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "'S")) && len(w) > 2 && !isStopword(strings.ToLower(w)) {
			// "Caroline's" is about Caroline; "it's" and "that's" are
			// stopwords either way.
			w, possessive = w[:len(w)-2], true
		}
		first, _ := utf8.DecodeRuneInString(w)
		t := token{
			text:      w,
			lower:     strings.ToLower(w),
			sentStart: sentStart,
			broken:    broken,
			capital:   unicode.IsUpper(first),
			number:    unicode.IsDigit(first),

			possessive: possessive,
		}
		t.acronym = isAcronym(w)
		toks = append(toks, t)
		sentStart, broken = false, false
		i = j
	}
	return toks
}

func isAcronym(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		}
	}
	return letters >= 2
}

// speakerRE matches a transcript line "Name: text" with a name of one to
// three capitalised words.
var speakerRE = regexp.MustCompile(`^\s*(\p{Lu}[\p{L}\p{M}'’.-]*(?:[ \t]+\p{Lu}[\p{L}\p{M}'’.-]*){0,2})[ \t]*:\s+\S`)

// labelWords look like a speaker prefix but label the text instead.
var labelWords = toSet(`note notes update todo to-do reminder summary question answer q a re fyi
important warning error info tip idea task goal plan status title subject topic ps nb
user assistant system bot ai agent human`)

// splitSpeaker returns the speaker of a "Name: text" note and the text after
// the prefix; speaker is "" when the note doesn't look like a transcript
// line. "user" and "assistant" are roles, not names, so they don't count.
func splitSpeaker(content string) (speaker, body string) {
	m := speakerRE.FindStringSubmatchIndex(content)
	if m == nil {
		return "", content
	}
	name := strings.TrimSpace(content[m[2]:m[3]])
	body = strings.TrimLeftFunc(content[m[1]-1:], unicode.IsSpace)
	if _, ok := labelWords[strings.ToLower(name)]; ok {
		return "", content
	}
	for _, w := range strings.Fields(name) {
		if isFunctionWord(strings.ToLower(w)) {
			return "", content
		}
	}
	return name, body
}

// truncateWords returns s cut to at most max runes at a word boundary,
// marked with an ellipsis when cut.
func truncateWords(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max]
	cut := strings.LastIndexFunc(string(r), unicode.IsSpace)
	out := string(r)
	if cut > max/2 {
		out = out[:cut]
	}
	return strings.TrimRight(out, " ,;:-") + "…"
}
