package locomo

import (
	"strings"
	"unicode/utf8"
)

// PorterStem stems one word with the Porter algorithm exactly as NLTK's
// PorterStemmer does in its default mode, NLTK_EXTENSIONS (the stemmer the
// official LoCoMo evaluation uses: nltk.stem.PorterStemmer()). That mode
// differs from Porter's 1980 paper and from Martin Porter's reference
// implementations in a few places, all reproduced here:
//
//   - the word is lowercased; words of one or two characters are returned
//     unstemmed;
//   - a short table of irregular forms ("skies"->"sky", "dying"->"die",
//     "lying"->"lie", "tying"->"tie", "innings"->"inning", "news", "howe",
//     "proceed", "exceed", "succeed", ...);
//   - step 1a: a four-letter word in -ies becomes -ie ("dies"->"die");
//   - step 1b: -ied becomes -ie in a four-letter word, else -i;
//   - step 1c: y->i only after a consonant that is not the first letter
//     ("happy"->"happi", "enjoy"->"enjoy", "cry"->"cri");
//   - step 2: -alli->-al first (then step 2 again), -bli->-ble (not
//     -abli), plus -fulli->-ful and -logi->-log;
//   - condition *o also holds for a two-letter vowel-consonant stem.
//
// Characters are handled as Unicode code points, like Python strings; any
// letter other than a, e, i, o, u and y counts as a consonant. Not the
// Snowball "Porter2" English stemmer.
func PorterStem(word string) string {
	lower := strings.ToLower(word)
	if s, ok := porterIrregular[word]; ok {
		return s
	}
	if utf8.RuneCountInString(word) <= 2 {
		return lower
	}
	w := []rune(lower)
	w = porterStep1a(w)
	w = porterStep1b(w)
	w = porterStep1c(w)
	w = porterStep2(w)
	w = porterStep3(w)
	w = porterStep4(w)
	w = porterStep5a(w)
	w = porterStep5b(w)
	return string(w)
}

// porterIrregular is NLTK's irregular_forms table, inverted.
var porterIrregular = map[string]string{
	"sky": "sky", "skies": "sky",
	"dying":   "die",
	"lying":   "lie",
	"tying":   "tie",
	"news":    "news",
	"innings": "inning", "inning": "inning",
	"outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning",
	"howe":    "howe",
	"proceed": "proceed",
	"exceed":  "exceed",
	"succeed": "succeed",
}

// consonants reports, for each position of w, whether it is a consonant in
// Porter's sense: not a, e, i, o, u, and not a y preceded by a consonant.
func consonants(w []rune) []bool {
	c := make([]bool, len(w))
	for i, r := range w {
		switch r {
		case 'a', 'e', 'i', 'o', 'u':
			c[i] = false
		case 'y':
			c[i] = i == 0 || !c[i-1]
		default:
			c[i] = true
		}
	}
	return c
}

// measure is Porter's m: the number of vowel-consonant sequences.
func measure(stem []rune) int {
	c := consonants(stem)
	m := 0
	for i := 1; i < len(c); i++ {
		if !c[i-1] && c[i] {
			m++
		}
	}
	return m
}

func containsVowel(stem []rune) bool {
	for _, isC := range consonants(stem) {
		if !isC {
			return true
		}
	}
	return false
}

func endsDoubleConsonant(w []rune) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && consonants(w)[n-1]
}

// endsCVC is condition *o, with NLTK's two-letter extension.
func endsCVC(w []rune) bool {
	n := len(w)
	c := consonants(w)
	if n >= 3 && c[n-3] && !c[n-2] && c[n-1] && w[n-1] != 'w' && w[n-1] != 'x' && w[n-1] != 'y' {
		return true
	}
	return n == 2 && !c[0] && c[1]
}

func hasSuffix(w []rune, suffix string) bool {
	if len(suffix) > len(w) {
		return false
	}
	tail := w[len(w)-len(suffix):]
	for i := 0; i < len(suffix); i++ {
		if tail[i] != rune(suffix[i]) {
			return false
		}
	}
	return true
}

// withSuffix returns w less its last cut runes plus add, in a new slice.
func withSuffix(w []rune, cut int, add string) []rune {
	out := make([]rune, 0, len(w)-cut+len(add))
	out = append(out, w[:len(w)-cut]...)
	return append(out, []rune(add)...)
}

type porterRule struct {
	suffix, replacement string
	cond                func(stem []rune) bool // nil: unconditional
}

// applyRules applies the first rule whose suffix matches; if its condition
// fails, no further rule is tried (NLTK's _apply_rule_list). The suffix "*d"
// stands for a double consonant, and "" matches any word.
func applyRules(w []rune, rules []porterRule) []rune {
	for _, r := range rules {
		if r.suffix == "*d" {
			if endsDoubleConsonant(w) {
				stem := w[:len(w)-2]
				if r.cond == nil || r.cond(stem) {
					return withSuffix(w, 2, r.replacement)
				}
				return w
			}
			continue
		}
		if hasSuffix(w, r.suffix) {
			stem := w[:len(w)-len(r.suffix)]
			if r.cond == nil || r.cond(stem) {
				return withSuffix(w, len(r.suffix), r.replacement)
			}
			return w
		}
	}
	return w
}

func positiveMeasure(stem []rune) bool { return measure(stem) > 0 }
func measureGT1(stem []rune) bool      { return measure(stem) > 1 }

var step1aRules = []porterRule{
	{"sses", "ss", nil},
	{"ies", "i", nil},
	{"ss", "ss", nil},
	{"s", "", nil},
}

func porterStep1a(w []rune) []rune {
	if hasSuffix(w, "ies") && len(w) == 4 {
		return withSuffix(w, 3, "ie")
	}
	return applyRules(w, step1aRules)
}

func porterStep1b(w []rune) []rune {
	if hasSuffix(w, "ied") {
		if len(w) == 4 {
			return withSuffix(w, 3, "ie")
		}
		return withSuffix(w, 3, "i")
	}
	if hasSuffix(w, "eed") {
		if measure(w[:len(w)-3]) > 0 {
			return withSuffix(w, 3, "ee")
		}
		return w
	}
	var stem []rune
	ok := false
	for _, suf := range []string{"ed", "ing"} {
		if hasSuffix(w, suf) {
			stem = w[:len(w)-len(suf)]
			if containsVowel(stem) {
				ok = true
				break
			}
		}
	}
	if !ok {
		return w
	}
	last := stem[len(stem)-1]
	return applyRules(stem, []porterRule{
		{"at", "ate", nil},
		{"bl", "ble", nil},
		{"iz", "ize", nil},
		{"*d", string(last), func([]rune) bool { return last != 'l' && last != 's' && last != 'z' }},
		{"", "e", func(s []rune) bool { return measure(s) == 1 && endsCVC(s) }},
	})
}

var step1cRules = []porterRule{
	{"y", "i", func(stem []rune) bool { return len(stem) > 1 && consonants(stem)[len(stem)-1] }},
}

func porterStep1c(w []rune) []rune { return applyRules(w, step1cRules) }

func porterStep2(w []rune) []rune {
	if hasSuffix(w, "alli") && positiveMeasure(w[:len(w)-4]) {
		return porterStep2(withSuffix(w, 4, "al"))
	}
	pm := positiveMeasure
	return applyRules(w, []porterRule{
		{"ational", "ate", pm},
		{"tional", "tion", pm},
		{"enci", "ence", pm},
		{"anci", "ance", pm},
		{"izer", "ize", pm},
		{"bli", "ble", pm},
		{"alli", "al", pm},
		{"entli", "ent", pm},
		{"eli", "e", pm},
		{"ousli", "ous", pm},
		{"ization", "ize", pm},
		{"ation", "ate", pm},
		{"ator", "ate", pm},
		{"alism", "al", pm},
		{"iveness", "ive", pm},
		{"fulness", "ful", pm},
		{"ousness", "ous", pm},
		{"aliti", "al", pm},
		{"iviti", "ive", pm},
		{"biliti", "ble", pm},
		{"fulli", "ful", pm},
		// The 'l' of -logi stays with the stem for the condition.
		{"logi", "log", func([]rune) bool { return pm(w[:len(w)-3]) }},
	})
}

var step3Rules = []porterRule{
	{"icate", "ic", positiveMeasure},
	{"ative", "", positiveMeasure},
	{"alize", "al", positiveMeasure},
	{"iciti", "ic", positiveMeasure},
	{"ical", "ic", positiveMeasure},
	{"ful", "", positiveMeasure},
	{"ness", "", positiveMeasure},
}

func porterStep3(w []rune) []rune { return applyRules(w, step3Rules) }

var step4Rules = []porterRule{
	{"al", "", measureGT1},
	{"ance", "", measureGT1},
	{"ence", "", measureGT1},
	{"er", "", measureGT1},
	{"ic", "", measureGT1},
	{"able", "", measureGT1},
	{"ible", "", measureGT1},
	{"ant", "", measureGT1},
	{"ement", "", measureGT1},
	{"ment", "", measureGT1},
	{"ent", "", measureGT1},
	{"ion", "", func(s []rune) bool { return measure(s) > 1 && (s[len(s)-1] == 's' || s[len(s)-1] == 't') }},
	{"ou", "", measureGT1},
	{"ism", "", measureGT1},
	{"ate", "", measureGT1},
	{"iti", "", measureGT1},
	{"ous", "", measureGT1},
	{"ive", "", measureGT1},
	{"ize", "", measureGT1},
}

func porterStep4(w []rune) []rune { return applyRules(w, step4Rules) }

func porterStep5a(w []rune) []rune {
	if hasSuffix(w, "e") {
		stem := w[:len(w)-1]
		m := measure(stem)
		if m > 1 || (m == 1 && !endsCVC(stem)) {
			return stem
		}
	}
	return w
}

func porterStep5b(w []rune) []rune {
	return applyRules(w, []porterRule{
		{"ll", "l", func([]rune) bool { return measure(w[:len(w)-1]) > 1 }},
	})
}
