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
	// measure: a time or an amount as written ("9am", "7:30pm", "£80",
	// "4.5%"); only statements mark them (see tokenizeStatement).
	measure bool
	// afterColon: a colon separates it from the token before.
	afterColon bool
	// from and to are the token's rune offsets in the text.
	from, to int
}

// tokenize splits text into tokens. Apostrophes and hyphens inside words
// and '.', ',', ':', '/' inside numbers join (don't, self-care, 3.5, 10:30,
// 2023-05-08); sentence punctuation and line breaks start a new sentence;
// any other symbol breaks phrases.
func tokenize(text string) []token { return tokenizeAs(text, false) }

// tokenizeStatement tokenizes a note that is not a transcript line with
// three more rules, which a statement about a user needs and a
// conversation turn was measured without: a title or an initial keeps
// its full stop and its name ("Dr. Okafor", "Ursula K. Le Guin": the
// stop ends no sentence); a currency sign or a per cent sign joins its
// number ("£80", "4.5%"); and a word with a capital inside ("iPhone")
// or capitals with digits ("Q1", "EV6") counts as capitalised.
func tokenizeStatement(text string) []token { return tokenizeAs(text, true) }

// titles are the abbreviations that keep their full stop before a name.
var titles = toSet(`dr mr mrs ms mx prof st sr jr rev`)

func tokenizeAs(text string, statement bool) []token {
	var toks []token
	sentStart, broken, colon := true, true, false
	runes := []rune(text)
	isWord := isWordRune
	for i := 0; i < len(runes); {
		r := runes[i]
		currency := statement && unicode.Is(unicode.Sc, r) && i+1 < len(runes) && unicode.IsDigit(runes[i+1])
		phone := 0
		if statement && (i == 0 || !isWord(runes[i-1])) {
			phone = phoneLen(runes[i:])
		}
		if statement && r == '&' && len(toks) > 0 && toks[len(toks)-1].capital && nameAmpersand(runes, i) {
			// "Marks & Spencer": the ampersand stands inside the name.
			toks = append(toks, token{text: "&", lower: "&", broken: broken, from: i, to: i + 1, afterColon: colon})
			i++
			continue
		}
		if !isWord(r) && !currency && phone == 0 {
			switch r {
			case '.', '!', '?', ';', '\n', '…':
				sentStart, broken = true, true
			default:
				if !unicode.IsSpace(r) {
					broken = true
				}
				colon = colon || r == ':'
			}
			i++
			continue
		}
		j := i + 1
		if currency {
			j++
		}
		if phone > 0 {
			j = i + phone
		} else {
			j = wordEnd(runes, j, statement)
		}
		if statement && j < len(runes) && (runes[j] == '%' && unicode.IsDigit(runes[j-1]) || runes[j] == '+' && unicode.IsLetter(runes[j-1])) {
			// "4.5%", "Disney+"
			j++
		}
		keepStop := false
		if statement && j+2 < len(runes) && runes[j] == '.' && runes[j+1] == ' ' && unicode.IsUpper(runes[j+2]) {
			// "Dr. Okafor", "K. Le Guin": the stop belongs to the word.
			lw := strings.ToLower(string(runes[i:j]))
			_, title := titles[lw]
			initial := j-i == 1 && unicode.IsUpper(runes[i])
			if title || initial {
				j++
				keepStop = true
			}
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
			from:       i,
			to:         j,
			afterColon: colon,
		}
		t.acronym = isAcronym(w)
		if statement {
			t.capital = t.capital || innerCapital(w)
			t.acronym = t.acronym || upperWithDigits(w)
			t.number = t.number || currency
			t.measure = currency || phone > 0 || isMeasure(t.lower)
		}
		toks = append(toks, t)
		sentStart, broken, colon = false, false, false
		if keepStop {
			// The stop after a title is no sentence end; the name goes on.
			i = j
			continue
		}
		i = j
	}
	return toks
}

// wordEnd is the end of the word whose runes run up to j: letters and
// digits, joined by apostrophes and hyphens, by '.', ',', ':' and '/'
// between digits and, in a statement, by '.' and '/' between letters
// ("Fly.io", "Europe/Berlin") and '&' before a capital ("AT&T").
func wordEnd(runes []rune, j int, statement bool) int {
	for j < len(runes) {
		if isWordRune(runes[j]) {
			j++
			continue
		}
		if j+1 < len(runes) && isWordRune(runes[j+1]) {
			c, prev, next := runes[j], runes[j-1], runes[j+1]
			joins := false
			switch c {
			case '\'', '’', '-', '‐':
				joins = true
			case '.', ',', ':', '/':
				joins = unicode.IsDigit(prev) && unicode.IsDigit(next)
				if statement && (c == '.' || c == '/') {
					joins = joins || unicode.IsLetter(prev) && unicode.IsLetter(next)
				}
			case '&':
				joins = statement && unicode.IsLetter(prev) && unicode.IsUpper(next)
			}
			if joins {
				j += 2
				continue
			}
		}
		break
	}
	return j
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// nameAmpersand reports whether the '&' at runes[i] joins two names, a
// space either side and a capital after: "Marks & Spencer".
func nameAmpersand(runes []rune, i int) bool {
	return i > 0 && i+2 < len(runes) && runes[i-1] == ' ' && runes[i+1] == ' ' && unicode.IsUpper(runes[i+2])
}

// phoneRE matches a phone number as people write it: an international
// "+44 20 7946 0958" or a national "020 7946 0958", groups of digits
// apart by single spaces or hyphens, or "555-123-4567".
var phoneRE = regexp.MustCompile(`^((?:\+\d{1,3}|0\d{1,4})(?:[ -]\d{2,6}){1,4}|\d{3}-\d{3}-\d{4})(?:[^\pL\pN]|$)`)

// phoneLen is the length in runes of the phone number that text opens
// with, 0 for none: 9 to 15 digits, no word straight after.
func phoneLen(text []rune) int {
	if len(text) == 0 || !(text[0] == '+' || unicode.IsDigit(text[0])) {
		return 0
	}
	head := string(text[:min(len(text), 32)])
	sub := phoneRE.FindStringSubmatch(head)
	if sub == nil {
		return 0
	}
	m := sub[1]
	n := utf8.RuneCountInString(m)
	if n < len(text) && (text[n] == '-' || text[n] == ' ') && n+1 < len(text) && unicode.IsDigit(text[n+1]) {
		// More digits follow: a list of numbers, not one phone number.
		return 0
	}
	digits := 0
	for _, r := range m {
		if unicode.IsDigit(r) {
			digits++
		}
	}
	if digits < 9 || digits > 15 {
		return 0
	}
	return n
}

// timeRE matches a time of day as people write it: "9am", "7:30pm", "17:45".
var timeRE = regexp.MustCompile(`^(\d{1,2}(:\d\d)?(am|pm)|\d{1,2}:\d\d)$`)

// isMeasure reports whether a lower-cased token is a time or an amount.
func isMeasure(w string) bool {
	return timeRE.MatchString(w) || (strings.HasSuffix(w, "%") && len(w) > 1)
}

// innerCapital reports a word like "iPhone" or "eBay": lower case first,
// a capital after.
func innerCapital(w string) bool {
	first, n := utf8.DecodeRuneInString(w)
	return unicode.IsLower(first) && strings.IndexFunc(w[n:], unicode.IsUpper) >= 0
}

// upperWithDigits reports a code like "Q1" or "EV6": capitals and digits,
// no lower case.
func upperWithDigits(w string) bool {
	up, digit := false, false
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			up = true
		case unicode.IsDigit(r):
			digit = true
		case unicode.IsLower(r):
			return false
		}
	}
	return up && digit
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
