package facts

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/amem-dev/amem/internal/words"
)

// A reading is what the rules see of one note: its words, the values it
// names by kind, its subject and whether it is negated.
type reading struct {
	// words are the note's tokens in lower case, in order, punctuation
	// trimmed; the month May is "may(month)", so that no cue list takes it
	// for the modal.
	words []string
	// content holds the stems of the words that say what the note is
	// about: no stopword, negation or value but names, which are often
	// what an attribute is ("Duolingo", "Spanish").
	content map[string]bool
	values  map[string][]string // kind (time, price, number, day, month, name) -> values
	subject []string            // who or what the note is about; "user" for the first person
	// possessive is set when the subject is "X's N": the N is part of
	// who the note is about ("Tariq's wife" is not Tariq).
	possessive bool
	negated    bool
	// around holds the words on either side of each value (kind, then
	// value), "<" before the word on its left and ">" before the one on
	// its right: the attribute a value is of ("at 9:30", "14 June", "120
	// guests").
	around map[string][]string
	at     int      // the token being read
	lower  []string // every token in lower case
}

// Value kinds. A time is a clock time ("3pm", "9:40"), a price has a
// currency sign or a pence suffix, a number is any other token with a
// digit (ages, versions, counts, rooms), a day a weekday, a month a month
// name, a name a capitalised word inside the sentence (people, places,
// brands).
const (
	kindTime   = "time"
	kindPrice  = "price"
	kindNumber = "number"
	kindNth    = "ordinal"
	kindDay    = "day"
	kindMonth  = "month"
	kindName   = "name"
)

var (
	clockTime = regexp.MustCompile(`^\d{1,2}(:\d{2})?(am|pm)$|^\d{1,2}:\d{2}$`)
	ordinal   = regexp.MustCompile(`^\d+(st|nd|rd|th)$`)
	price     = regexp.MustCompile(`^[$£€][\d.,]+[km]?$|^\d+(\.\d+)?p$`)
)

var days = set("monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday saturdays sunday sundays weekend weekends")

var months = set("january february march april may june july august september october november december")

// firstPerson words make the user the subject.
var firstPerson = set("i i'm i've i'd i'll me my mine we we're we've we'd our ours us")

// notNames are capitalised words that name no one: titles, articles and
// pronouns.
var notNames = set("i dr mr mrs ms the a an our my we")

// stopwords are left out of the content words that say what attribute a
// note is about.
var stopwords = set(`a an the and or but if so to of in on at by for with from as is are was were be been being am
i me my mine we us our ours you your he him his she her it its they them their this that these those there here
do does did have has had will would shall should can could may might must just really very also too
about into over up out than then now what which who whom when where why how all any some each
i'm i've i'd i'll we're we've it's they're that's there's he's she's
s not no never n't after all every`)

var negations = set("not no never nobody nothing none nor neither cannot without")

// read tokenises a note. Tokens keep their inner punctuation ("9:40",
// "£2.80", "1.21") and lose what ends a sentence or a clause.
func read(text string) reading {
	r := reading{content: map[string]bool{}, values: map[string][]string{}, around: map[string][]string{}}
	text = strings.ReplaceAll(text, "’", "'")
	fields := strings.Fields(text)
	var raw []string
	for _, f := range fields {
		f = strings.Trim(f, `.,;:!?"()[]`)
		f = strings.TrimSuffix(f, "'")
		if f != "" {
			raw = append(raw, f)
		}
	}
	for _, tok := range raw {
		r.lower = append(r.lower, strings.ToLower(tok))
	}
	for i, tok := range raw {
		r.at = i
		low := strings.ToLower(tok)
		if tok == "May" && i > 0 {
			// The month, not the modal verb that makes a note a possibility.
			r.words = append(r.words, "may(month)")
		} else {
			r.words = append(r.words, low)
		}
		base := strings.TrimSuffix(low, "'s")
		if strings.HasSuffix(low, "n't") || negations[low] {
			r.negated = true
		}
		switch {
		case price.MatchString(low):
			r.add(kindPrice, low)
		case clockTime.MatchString(low):
			r.add(kindTime, clock(low))
		case ordinal.MatchString(low):
			r.add(kindNth, low)
		case low == "noon" || low == "midnight":
			r.add(kindTime, low)
		case strings.ContainsFunc(low, unicode.IsDigit):
			// "3 pm" is a time; any other token with a digit a number.
			if i+1 < len(raw) && (raw[i+1] == "pm" || raw[i+1] == "am") {
				r.add(kindTime, clock(low+raw[i+1]))
			} else {
				r.add(kindNumber, strings.TrimPrefix(low, "v"))
			}
		case words.Number(low) && low != "one" && low != "second":
			// "one" is as often a pronoun ("don't have one now"), and
			// "second" an addition (a second dog).
			r.add(kindNumber, low)
		case days[low]:
			r.add(kindDay, strings.TrimSuffix(low, "s"))
		case months[low] && tok != "may":
			r.add(kindMonth, low)
		case i > 0 && isUpper(tok) && !notNames[base] && !firstPerson[low]:
			r.add(kindName, base)
			r.content[base] = true
		case r.negated && (strings.HasSuffix(low, "n't") || negations[low]):
		case !stopwords[low] && !stopwords[base]:
			r.content[stem(base)] = true
		}
	}
	r.subject, r.possessive = subjectOf(raw)
	return r
}

func (r *reading) add(kind, v string) {
	if !slices.Contains(r.values[kind], v) {
		r.values[kind] = append(r.values[kind], v)
	}
	k := kind + ":" + v
	if r.at > 0 {
		r.around[k] = append(r.around[k], "<"+r.lower[r.at-1])
	}
	if r.at+1 < len(r.lower) {
		r.around[k] = append(r.around[k], ">"+r.lower[r.at+1])
	}
}

// subjectOf reads who a note is about from how it begins: the first
// person ("I", "my", "we", "the user"), or a capitalised first word that
// is not a pronoun, an article or a number ("Hannah lives in Leeds", "Max's
// vet is ..."), with the thing it owns ("Tariq's wife"). A note that
// begins with a verb ("Changed the password ...") gets the verb: harmless,
// since two subjects only part notes when neither note holds the other's
// (otherSubject). Nil for "The meeting ...", "Two of ...".
func subjectOf(raw []string) ([]string, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	first := strings.ToLower(raw[0])
	if firstPerson[first] || (first == "the" && len(raw) > 1 && strings.ToLower(raw[1]) == "user") ||
		(first == "user" || first == "user's") {
		return []string{"user"}, false
	}
	if notNames[first] || !isUpper(raw[0]) || words.Number(first) {
		return nil, false
	}
	base := strings.TrimSuffix(first, "'s")
	// "Grandma Rose", "Dr. Patel": a name of two capitalised words.
	subj := []string{base}
	if len(raw) > 1 && isUpper(raw[1]) && base == first {
		subj = append(subj, strings.TrimSuffix(strings.ToLower(raw[1]), "'s"))
	}
	if base != first && len(raw) > 1 {
		return append(subj, stem(strings.ToLower(raw[1]))), true
	}
	return subj, false
}

// clock writes a clock time the same whichever way it came: "6:30am"
// and "6:30" are one time, "3pm" and "3:00pm" too. A time without am or
// pm keeps none: it matches either (see sameClock).
func clock(t string) string {
	suffix := ""
	if strings.HasSuffix(t, "am") || strings.HasSuffix(t, "pm") {
		t, suffix = t[:len(t)-2], t[len(t)-2:]
	}
	if !strings.Contains(t, ":") {
		t += ":00"
	}
	return t + suffix
}

func isUpper(tok string) bool {
	for _, c := range tok {
		return unicode.IsUpper(c)
	}
	return false
}

// stem folds the endings that most often separate one word's forms in
// short notes ("meets"/"meet", "lessons"/"lesson", "moved"/"move"): crude,
// but the same on both sides, which is all an overlap needs.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			w = strings.TrimSuffix(w, suf)
			// "running" -> "run", "stopped" -> "stop".
			if n := len(w); suf != "s" && n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
				w = w[:n-1]
			}
			break
		}
	}
	if len(w) > 6 {
		w = w[:6]
	}
	return w
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// has reports whether the note holds the phrase (words separated by
// single spaces) as whole words.
func (r reading) has(phrase string) bool {
	p := strings.Fields(phrase)
	for i := 0; i+len(p) <= len(r.words); i++ {
		if slices.Equal(r.words[i:i+len(p)], p) {
			return true
		}
	}
	return false
}

// firstPerson reports whether the note speaks of the user: "I", "my",
// "we", "our", "the user".
func (r reading) firstPerson() bool {
	for _, w := range r.words {
		if firstPerson[w] || w == "user" || w == "user's" {
			return true
		}
	}
	return false
}

// firstOf returns the first phrase of the list the note holds.
func (r reading) firstOf(phrases []string) (string, bool) {
	for _, p := range phrases {
		if r.has(p) {
			return p, true
		}
	}
	return "", false
}

// all returns every value the note names, of every kind but names (a
// name may be the subject in one note and an object in the other).
func (r reading) all() []string {
	var out []string
	for k, vs := range r.values {
		if k != kindName {
			out = append(out, vs...)
		}
	}
	return out
}

// aside reports whether a lower-case word of the newer note n is the
// older note's subject, the user, or one of n's values other than a name: not
// what a cue word is about ("Hannah no longer watches TV" after "Hannah is
// pregnant"; "cancelled the Wednesday cleaner"). A name that is only the
// older note's object is ("Gino's closed" after "Our favourite pizza
// place is Gino's").
func aside(o, n reading, w string) bool {
	if slices.Contains(o.subject, w) || w == "user" {
		return true
	}
	for k, vs := range n.values {
		if k != kindName && slices.Contains(vs, w) {
			return true
		}
	}
	return false
}
