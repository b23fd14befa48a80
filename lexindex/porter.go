package lexindex

// stem applies the original Porter (1980) algorithm the way SQLite's FTS5
// porter tokenizer (fts5_porter.c) does, so that a query stemmed here finds
// what FTS5 would have found. It works on bytes, in place in w's backing
// array (w needs cap >= len(w)+1: step 1b may add a letter), and returns
// the stem. Like FTS5, and unlike the NLTK stemmer in package locomo:
//
//   - tokens shorter than 3 or longer than 64 bytes pass through unstemmed;
//   - bytes other than a, e, i, o, u (and y after a consonant) are
//     consonants, so a non-ASCII letter is a consonant and suffixes are
//     ASCII only;
//   - a suffix matches only when the stem left before it is non-empty;
//   - step 2 has Porter's later "bli"->"ble" and "logi"->"log" (m measured
//     without "logi"); no irregular forms and no NLTK extensions, so
//     "dies"->"di", "skies"->"ski", "dying"->"dy", "cry"->"cry" and
//     "enjoy"->"enjoi" here, where NLTK gives "die", "sky", "die", "cri"
//     and "enjoy".
//
// locomo.PorterStem is deliberately not reused: the LoCoMo metric must match
// NLTK, the index must match FTS5, and the two disagree on those points.
func stem(w []byte) []byte {
	if len(w) < 3 || len(w) > maxStemLen {
		return w
	}
	w = step1a(w)
	w = step1b(w)
	if n := len(w); w[n-1] == 'y' && hasVowel(w[:n-1]) {
		w[n-1] = 'i'
	}
	w = applyRules(w, step2Rules, 0)
	w = applyRules(w, step3Rules, 0)
	w = applyRules(w, step4Rules, 1)
	if n := len(w); w[n-1] == 'e' {
		m := measure(w[:n-1])
		if m > 1 || (m == 1 && !endsCVC(w[:n-1])) {
			w = w[:n-1]
		}
	}
	if n := len(w); n > 1 && w[n-1] == 'l' && w[n-2] == 'l' && measure(w[:n-1]) > 1 {
		w = w[:n-1]
	}
	return w
}

// maxStemLen is FTS5_PORTER_MAX_TOKEN.
const maxStemLen = 64

// isCons reports whether w[i] is a consonant: not a vowel, and not a y
// that follows a consonant.
func isCons(w []byte, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !isCons(w, i-1)
	}
	return true
}

// measure is Porter's m, the number of vowel-consonant sequences of s.
func measure(s []byte) int {
	m := 0
	prev := true // a leading consonant run is [C], not counted
	for i := range s {
		c := isCons(s, i)
		if c && !prev {
			m++
		}
		prev = c
	}
	return m
}

func hasVowel(s []byte) bool {
	for i := range s {
		if !isCons(s, i) {
			return true
		}
	}
	return false
}

// endsCVC is Porter's *o: consonant-vowel-consonant, the last not w, x or y.
func endsCVC(s []byte) bool {
	n := len(s)
	if n < 3 {
		return false
	}
	switch s[n-1] {
	case 'w', 'x', 'y':
		return false
	}
	return isCons(s, n-3) && !isCons(s, n-2) && isCons(s, n-1)
}

// endsWith reports whether w ends with suffix and has a non-empty stem
// before it (FTS5 tests nBuf > len(suffix)).
func endsWith(w []byte, suffix string) bool {
	n := len(w)
	if n <= len(suffix) {
		return false
	}
	return string(w[n-len(suffix):]) == suffix
}

// replace swaps w's last cut bytes for add; w has room (see stem).
func replace(w []byte, cut int, add string) []byte {
	return append(w[:len(w)-cut], add...)
}

func step1a(w []byte) []byte {
	switch {
	case endsWith(w, "sses"), endsWith(w, "ies"):
		return w[:len(w)-2]
	case endsWith(w, "ss"):
		return w
	case w[len(w)-1] == 's':
		return w[:len(w)-1]
	}
	return w
}

func step1b(w []byte) []byte {
	switch {
	case endsWith(w, "eed"):
		if measure(w[:len(w)-3]) > 0 {
			return w[:len(w)-1]
		}
		return w
	case endsWith(w, "ed") && hasVowel(w[:len(w)-2]):
		w = w[:len(w)-2]
	case endsWith(w, "ing") && hasVowel(w[:len(w)-3]):
		w = w[:len(w)-3]
	default:
		return w
	}
	switch {
	case endsWith(w, "at"), endsWith(w, "bl"), endsWith(w, "iz"):
		return append(w, 'e')
	}
	n := len(w)
	if n >= 2 {
		// FTS5 tests the double letter with y as a consonant.
		switch c := w[n-1]; c {
		case 'a', 'e', 'i', 'o', 'u', 'l', 's', 'z':
		default:
			if c == w[n-2] {
				return w[:n-1]
			}
		}
	}
	if measure(w) == 1 && endsCVC(w) {
		return append(w, 'e')
	}
	return w
}

type rule struct{ suffix, repl string }

// applyRules applies the first rule whose suffix w ends with, when the
// stem before it has m > minM; a matching rule whose condition fails ends
// the step (Porter's reference implementation and FTS5 alike).
func applyRules(w []byte, rules []rule, minM int) []byte {
	for _, r := range rules {
		if !endsWith(w, r.suffix) {
			continue
		}
		s := w[:len(w)-len(r.suffix)]
		if measure(s) <= minM {
			return w
		}
		if r.suffix == "ion" && s[len(s)-1] != 's' && s[len(s)-1] != 't' {
			return w
		}
		return replace(w, len(r.suffix), r.repl)
	}
	return w
}

var step2Rules = []rule{
	{"ational", "ate"}, {"tional", "tion"},
	{"enci", "ence"}, {"anci", "ance"},
	{"izer", "ize"},
	{"logi", "log"},
	{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"},
	{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"},
	{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
}

var step3Rules = []rule{
	{"ical", "ic"},
	{"ness", ""},
	{"icate", "ic"}, {"iciti", "ic"},
	{"ful", ""},
	{"ative", ""},
	{"alize", "al"},
}

var step4Rules = []rule{
	{"al", ""},
	{"ance", ""}, {"ence", ""},
	{"er", ""},
	{"ic", ""},
	{"able", ""}, {"ible", ""},
	{"ant", ""}, {"ement", ""}, {"ment", ""}, {"ent", ""},
	{"ion", ""}, {"ou", ""},
	{"ism", ""},
	{"ate", ""}, {"iti", ""},
	{"ous", ""},
	{"ive", ""},
	{"ize", ""},
}
