package locomo

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WordTokenize approximates nltk.word_tokenize (NLTK 3.8), which the A-Mem
// evaluation harness uses for BLEU. nltk.word_tokenize first splits the text
// into sentences with the pretrained Punkt model, then tokenizes each sentence
// with NLTKWordTokenizer (an improved Penn Treebank tokenizer).
//
// The Treebank stage is reproduced rule for rule: opening double quotes become a
// token of two backquotes and closing ones a token of two apostrophes,
// punctuation (, : ; @ # $ % & ? ! * ( ) [ ] { } < > -- and ellipses) is split
// off, commas and colons stay inside numbers ("3,000", "10:30"), a period is
// split off only at the end of a sentence, and clitics are separated
// ("don't" -> "do" "n't", "i'm" -> "i" "'m", "cannot" -> "can" "not",
// "gonna" -> "gon" "na"). Differences from Python's re module are confined to
// non-ASCII text: \b and \d here are ASCII-only.
//
// The Punkt stage is approximated (its English model is data this package
// does not ship): a whitespace-delimited chunk ending in a single period
// (possibly followed by closing quotes or brackets) ends a sentence when
// more text follows, except when the part before the period is a dotted
// abbreviation ("u.s.", "e.g.", "ph.d."), is a common abbreviation (mr, mrs, ms, dr, prof,
// sr, jr, st, vs, etc), or is a single letter or a number followed by a word
// starting in lower case. So "i went home. then i slept." gives
// [i went home . then i slept .].
func WordTokenize(s string) []string {
	var out []string
	for _, sent := range splitSentences(s) {
		out = append(out, treebankTokenize(sent)...)
	}
	return out
}

var punktAbbrev = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true,
	"sr": true, "jr": true, "st": true, "vs": true, "etc": true,
}

var (
	sentEndRE = regexp.MustCompile(`^(.*[^.])\.[\])}>"'»”’]*$`)
	dottedRE  = regexp.MustCompile(`^(?:\pL{1,2}\.)+\pL{1,2}$`)
	numberRE  = regexp.MustCompile(`^-?[.,]?[0-9][0-9,.\-]*$`)
)

// splitSentences cuts s after chunks that end a sentence (see WordTokenize).
func splitSentences(s string) []string {
	var sents []string
	start := 0
	i := 0
	for i < len(s) {
		// Skip whitespace to the next chunk.
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += size
		}
		chunk := s[i:j]
		next := nextChunk(s[j:])
		if next != "" && endsSentence(chunk, next) {
			sents = append(sents, s[start:j])
			start = j
		}
		i = j
	}
	if start < len(s) {
		sents = append(sents, s[start:])
	}
	return sents
}

func nextChunk(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if k := strings.IndexFunc(s, unicode.IsSpace); k >= 0 {
		return s[:k]
	}
	return s
}

func endsSentence(chunk, next string) bool {
	m := sentEndRE.FindStringSubmatch(chunk)
	if m == nil {
		return false
	}
	body := strings.ToLower(strings.TrimLeft(m[1], "([{<\"'`«“‘„"))
	if body == "" || dottedRE.MatchString(body) || punktAbbrev[body] {
		return false
	}
	if utf8.RuneCountInString(body) == 1 && unicode.IsLetter([]rune(body)[0]) || numberRE.MatchString(body) {
		r, _ := utf8.DecodeRuneInString(next)
		return !unicode.IsLower(r)
	}
	return true
}

type subst struct {
	re   *regexp.Regexp
	repl string
}

// NLTKWordTokenizer's rules (nltk/tokenize/destructive.py, NLTK 3.8), in order.
var (
	tbStartingQuotes = []subst{
		{regexp.MustCompile("([«“‘„]|[`]+)"), " $1 "},
		{regexp.MustCompile(`^"`), "``"},
		{regexp.MustCompile("(``)"), " $1 "},
		{regexp.MustCompile(`([ (\[{<])("|'')`), "$1 `` "},
		// (?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b is done by splitQuoteLetter.
	}
	tbPunctuation = []subst{
		{regexp.MustCompile(`([^.])(\.)([\])}>"'»”’ ]*)\s*$`), "$1 $2 $3 "},
		{regexp.MustCompile(`([:,])([^0-9])`), " $1 $2"},
		{regexp.MustCompile(`([:,])$`), " $1 "},
		{regexp.MustCompile(`\.{2,}`), " $0 "},
		{regexp.MustCompile(`[;@#$%&]`), " $0 "},
		{regexp.MustCompile(`([^.])(\.)([\])}>"']*)\s*$`), "$1 $2$3 "},
		{regexp.MustCompile(`[?!]`), " $0 "},
		{regexp.MustCompile(`([^'])' `), "$1 ' "},
		{regexp.MustCompile(`[*]`), " $0 "},
	}
	tbParens       = subst{regexp.MustCompile(`[\]\[(){}<>]`), " $0 "}
	tbDoubleDashes = subst{regexp.MustCompile(`--`), " -- "}
	tbEndingQuotes = []subst{
		{regexp.MustCompile("([»”’])"), " $1 "},
		{regexp.MustCompile(`''`), " '' "},
		{regexp.MustCompile(`"`), " '' "},
		{regexp.MustCompile(`([^' ])('[sS]|'[mM]|'[dD]|') `), "$1 $2 "},
		{regexp.MustCompile(`([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `), "$1 $2 "},
	}
	tbContractions = []subst{
		{regexp.MustCompile(`(?i)\b(can)(not)\b`), " $1 $2 "},
		{regexp.MustCompile(`(?i)\b(d)('ye)\b`), " $1 $2 "},
		{regexp.MustCompile(`(?i)\b(gim)(me)\b`), " $1 $2 "},
		{regexp.MustCompile(`(?i)\b(gon)(na)\b`), " $1 $2 "},
		{regexp.MustCompile(`(?i)\b(got)(ta)\b`), " $1 $2 "},
		{regexp.MustCompile(`(?i)\b(lem)(me)\b`), " $1 $2 "},
		{regexp.MustCompile(`(?i)\b(more)('n)\b`), " $1 $2 "},
		// (?i)\b(wan)(na)(?=\s): the lookahead's space is consumed and put back.
		{regexp.MustCompile(`(?i)\b(wan)(na)(\s)`), " $1 $2 $3"},
		{regexp.MustCompile(`(?i) ('t)(is)\b`), " $1 $2 "},
		{regexp.MustCompile(`(?i) ('t)(was)\b`), " $1 $2 "},
	}
)

func treebankTokenize(text string) []string {
	for _, r := range tbStartingQuotes {
		text = r.re.ReplaceAllString(text, r.repl)
	}
	text = splitQuoteLetter(text)
	for _, r := range tbPunctuation {
		text = r.re.ReplaceAllString(text, r.repl)
	}
	text = tbParens.re.ReplaceAllString(text, tbParens.repl)
	text = tbDoubleDashes.re.ReplaceAllString(text, tbDoubleDashes.repl)
	text = " " + text + " "
	for _, r := range tbEndingQuotes {
		text = r.re.ReplaceAllString(text, r.repl)
	}
	for _, r := range tbContractions {
		text = r.re.ReplaceAllString(text, r.repl)
	}
	return strings.Fields(text)
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// splitQuoteLetter implements (?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b -> "\1 \2":
// an apostrophe before a one-character word other than m, t, s, d or n
// ("'a" -> "' a").
func splitQuoteLetter(s string) string {
	if !strings.Contains(s, "'") {
		return s
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			i++
			continue
		}
		x, xs := utf8.DecodeRuneInString(s[i+1:])
		after, _ := utf8.DecodeRuneInString(s[i+1+xs:])
		end := i+1+xs >= len(s)
		if xs > 0 && isWordRune(x) && (end || !isWordRune(after)) && !strings.ContainsRune("mtsdnMTSDN", x) {
			b.WriteString("' ")
			b.WriteString(s[i+1 : i+1+xs])
			i += 1 + xs
			continue
		}
		b.WriteByte('\'')
		i++
	}
	return b.String()
}
