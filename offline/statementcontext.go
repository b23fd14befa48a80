package offline

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Statement kinds, as the context names them.
const (
	kindDecision   = "decision"
	kindPreference = "preference"
	kindPlan       = "plan"
	kindEvent      = "event"
	kindFact       = "fact"
)

// phrasePrepositions may sit inside a subject's noun phrase ("Talk
// proposal for GopherCon EU is due", "Editor of choice is").
var phrasePrepositions = toSet(`of for from with at in on the a an`)

// determiners open a noun phrase without being part of its subject.
var determiners = toSet(`the my our her his their your a an its this that these those`)

// firstSentence is the end (exclusive) of the tokens of the statement's
// first sentence or clause (a semicolon ends one too).
func (r *reading) firstSentence() int {
	for k := 1; k < len(r.toks); k++ {
		if r.toks[k].sentStart {
			return k
		}
	}
	return len(r.toks)
}

// kind says what the statement's first clause records: a decision, a
// preference, a plan, an event or, failing every word list, a fact. The
// lists are tried in that order, so "Booked a table" is a plan and
// "Decided to use" a decision, never an event.
func (r *reading) kind() string {
	end := r.firstSentence()
	has := func(set map[string]struct{}, not ...func(int) bool) bool {
		for k, t := range r.toks[:end] {
			if !inSet(set, t.lower) || r.causalDue(k) || len(not) > 0 && not[0](k) {
				continue
			}
			return true
		}
		return false
	}
	switch {
	case has(decisionWords):
		return kindDecision
	case has(preferenceWords, r.otherSense):
		return kindPreference
	case has(planWords, r.otherSense) || r.bigramIn(end, "takes", "over"):
		return kindPlan
	case has(pastWords):
		return kindEvent
	}
	return kindFact
}

// otherSense reports whether token k, a preference or plan word,
// is used otherwise: "next" as a place ("next door"), "like" as a
// preposition ("like family to her", "looks
// like rain") rather than after who likes ("I like", "would like",
// "doesn't like"), and "call" that names no one ("the earnings call")
// rather than how to address someone ("call me Sam").
func (r *reading) otherSense(k int) bool {
	switch r.toks[k].lower {
	case "next":
		// "next door", "next to the station": a place, not a plan.
		return k+1 < len(r.toks) && !r.toks[k+1].broken && (r.toks[k+1].lower == "door" || r.toks[k+1].lower == "to")
	case "like":
		return k == 0 || r.toks[k].broken || !inSet(likers, r.toks[k-1].lower)
	case "call":
		return k+1 >= len(r.toks) || !inSet(addressees, r.toks[k+1].lower)
	}
	return false
}

// addressees follow a "call" that says how to address someone.
var addressees = toSet(`me him her them us`)

// likers are the words before a "like" that states a liking.
var likers = toSet(`i you we they would 'd do does did don't doesn't didn't not really also still
always genuinely`)

func (r *reading) bigramIn(end int, a, b string) bool {
	for k := 0; k+1 < end; k++ {
		if r.toks[k].lower == a && r.toks[k+1].lower == b {
			return true
		}
	}
	return false
}

// span is a run of tokens [from, to).
type span struct{ from, to int }

// text writes a span as the note has it (names keep their case; a
// possessive its "'s" dropped, since the subject is the possessor).
func (r *reading) text(s span) string {
	var ws []string
	for k := s.from; k < s.to; k++ {
		t := r.toks[k]
		if r.proper[k] || t.acronym {
			ws = append(ws, t.text)
		} else {
			ws = append(ws, t.lower)
		}
	}
	return strings.Join(ws, " ")
}

// nameRun returns the run of proper-noun tokens that starts at k.
func (r *reading) nameRun(k, end int) span {
	j := k + 1
	for j < end && r.proper[j] && !r.toks[j].broken {
		j++
	}
	return span{k, j}
}

// subject finds what the statement is about, from its first clause: the
// noun phrase before the first verb, or the name in it ("My sister
// Anna's birthday": Anna); after a label and a colon, the name the label
// introduces ("Emergency contact: my sister Hannah"); for a decision by
// the user or a team, the thing chosen (the name after the verb, after
// "to" when something is switched "from" one thing "to" another);
// "" when the statement has no subject of its own ("Prefers oat milk",
// "I mentor"), which means the user.
func (r *reading) subject(kind string) string {
	end := r.firstSentence()
	if end == 0 {
		return ""
	}
	np := r.leadingPhrase(0, end)
	subj := ""
	if np.to > np.from {
		subj = r.phraseSubject(np)
		if np.to < end && r.toks[np.to].afterColon && !r.hasName(np) {
			if after := r.leadingPhrase(np.to, end); after.to > after.from && r.hasName(after) {
				subj = r.phraseSubject(after)
			}
		}
	}
	if kind == kindDecision && (subj == "" || subj == "team" || subj == "we") {
		if obj := r.chosen(end); obj != "" {
			return obj
		}
	}
	return subj
}

// leadingPhrase is the noun phrase at the start of toks[from:end]: past
// determiners, up to the first verb, stopword or punctuation that is not
// inside a name. Empty when the clause opens with a verb.
func (r *reading) leadingPhrase(from, end int) span {
	k := from
	det := false
	for k < end && inSet(determiners, r.toks[k].lower) && !r.proper[k] {
		k++
		det = true
	}
	start := k
	for k < end {
		t := r.toks[k]
		if k > start && t.broken {
			break
		}
		if !r.proper[k] && (isStopword(t.lower) || verbLike(t.lower) || r.thirdPersonVerb(k) || r.inDate[k] || t.number) {
			break
		}
		if k == start && !det && !r.proper[k] && !r.subjectWord(k, end) {
			return span{start, start}
		}
		k++
		if t.possessive {
			// "Ben's dentist": the possessor is the subject.
			if !r.hasName(span{start, k}) {
				return span{start, k}
			}
			continue
		}
	}
	return span{start, k}
}

// subjectWord reports whether a lower-case or sentence-initial word that
// opens a clause can be its subject rather than its verb: a verb form
// ("Takes", "Booked", "Watching"), or a word in -s followed by no verb
// ("Swims 40 lengths"; "Bins go out" has one), opens a clause without a
// subject.
func (r *reading) subjectWord(k, end int) bool {
	w := r.toks[k].lower
	if verbLike(w) || isStopword(w) || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") {
		return false
	}
	if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		for j := k + 1; j < end && j <= k+3; j++ {
			if verbLike(r.toks[j].lower) {
				return true
			}
		}
		return false
	}
	// An adjective or a verb in the base form opens a clause as often as
	// a noun does ("Allergic to ibuprofen", "Remind him"): the phrase is a
	// subject only when a verb follows it.
	for j := k + 1; j < end && j <= k+6; j++ {
		t := r.toks[j]
		if t.afterColon {
			// A label: "Emergency contact: my sister Hannah".
			return true
		}
		if verbLike(t.lower) || (strings.HasSuffix(t.lower, "s") && !strings.HasSuffix(t.lower, "ss") && !isStopword(t.lower) && j > k+1) {
			return true
		}
		if isFunctionWord(t.lower) && !inSet(auxiliaries, t.lower) && !inSet(phrasePrepositions, t.lower) {
			return false
		}
	}
	return false
}

func (r *reading) hasName(s span) bool {
	for k := s.from; k < s.to; k++ {
		if r.proper[k] {
			return true
		}
	}
	return false
}

// phraseSubject names a noun phrase's subject: its first name, else the
// possessor, else the phrase.
func (r *reading) phraseSubject(s span) string {
	for k := s.from; k < s.to; k++ {
		if r.proper[k] {
			run := r.nameRun(k, s.to)
			if run.to == s.to || r.toks[run.to-1].possessive {
				// The name is the phrase's head: "sister Anna".
				return r.text(run)
			}
			// The name qualifies a thing: "Q1 goal", "Sprout backend".
			return r.text(span{k, s.to})
		}
	}
	for k := s.from; k < s.to; k++ {
		if r.toks[k].possessive {
			return r.text(span{k, k + 1})
		}
	}
	return r.text(s)
}

// chosen is the thing a decision is about: the first name after the
// decision word (after "to" in "from X to Y"), else the first noun
// phrase after it. Dates are never the thing chosen.
func (r *reading) chosen(end int) string {
	at := -1
	for k := 0; k < end; k++ {
		if inSet(decisionWords, r.toks[k].lower) {
			at = k
			break
		}
	}
	if at < 0 {
		return ""
	}
	from := at + 1
	for k := from; k+1 < end; k++ {
		if r.toks[k].lower == "from" {
			for j := k + 1; j < end; j++ {
				if r.toks[j].lower == "to" {
					from = j + 1
					break
				}
			}
			break
		}
	}
	for k := from; k < end; k++ {
		if r.proper[k] && !r.inDate[k] && !calendarWord(r.toks[k].lower) {
			return r.text(r.nameRun(k, end))
		}
	}
	for k := from; k < end; k++ {
		w := r.toks[k].lower
		if isStopword(w) || verbLike(w) || w == "use" || r.inDate[k] {
			continue
		}
		j := k
		for j < end && !isStopword(r.toks[j].lower) && !verbLike(r.toks[j].lower) && !r.inDate[j] && (j == k || !r.toks[j].broken) {
			j++
		}
		return r.text(span{k, j})
	}
	return ""
}

// clause is the statement's first clause as written, at most about
// maxWords words, its first letter lowered unless it starts a name. A
// clause cut short is cut between phrases, never inside a name or a
// noun phrase ("Dr. Okafor", "payment gateway").
func (r *reading) clause(maxWords int) string {
	end := r.firstSentence()
	if end == 0 {
		return ""
	}
	cut := min(end, r.phraseEnd(maxWords, end))
	s := strings.TrimSpace(string([]rune(r.body)[r.toks[0].from:r.toks[cut-1].to]))
	if cut < end {
		s = strings.TrimRight(s, ",;:") + "…"
	}
	if !r.proper[0] && !r.toks[0].acronym && !isPronounI(r.toks[0].lower) {
		first, n := utf8.DecodeRuneInString(s)
		s = string(unicode.ToLower(first)) + s[n:]
	}
	return s
}

// maxPhraseWords is how far past a cut a phrase may run before the cut
// moves back to its start instead.
const maxPhraseWords = 4

// phraseEnd is where a clause of tokens [0, end) cut after token k-1
// ends: at k unless tokens k-1 and k belong to one phrase or k-1 is a
// small word that leads into k ("from January"), else past the phrase,
// or before it when it runs on for more than maxPhraseWords.
func (r *reading) phraseEnd(k, end int) int {
	if k >= end {
		return end
	}
	j := k
	for j < end && (r.samePhrase(j) || r.smallWordBefore(j)) {
		j++
	}
	if j-k <= maxPhraseWords {
		return j
	}
	start := k - 1
	for start > 1 && (r.samePhrase(start) || r.smallWordBefore(start)) {
		start--
	}
	return max(start, 1)
}

// smallWordBefore reports whether token k-1 is a function word that
// leads into token k, so that a clause must not end between them.
func (r *reading) smallWordBefore(k int) bool {
	t := r.toks[k]
	return !t.broken && !t.sentStart && !r.proper[k-1] && isFunctionWord(r.toks[k-1].lower)
}

// samePhrase reports whether token k goes on the phrase of token k-1:
// nothing between them but a space, and both inside one name or both
// words a keyword phrase may hold.
func (r *reading) samePhrase(k int) bool {
	t, prev := r.toks[k], r.toks[k-1]
	if t.broken || t.sentStart {
		return false
	}
	if r.proper[k-1] && r.proper[k] || r.inDate[k-1] && r.inDate[k] {
		return true
	}
	word := func(i int) bool {
		w := r.toks[i].lower
		return !r.proper[i] && !r.inDate[i] && !r.toks[i].number && !isStopword(w) && !verbLike(w) && !isVague(w)
	}
	return word(k-1) && word(k) && !prev.possessive
}

// isPronounI reports whether w (lower-cased) is "I" or one of its
// contractions, which English writes capitalised wherever they stand.
func isPronounI(w string) bool {
	switch strings.ReplaceAll(w, "’", "'") {
	case "i", "i'm", "i've", "i'd", "i'll":
		return true
	}
	return false
}

// contextWords bounds the clause a statement's context quotes: enough for
// "who does what to what", short of restating a long note.
const contextWords = 14

// describeStatement writes a statement's context: its kind, its subject
// and its point, with what the note does not say outright: relative
// dates resolved, and the day it was noted. "A plan about Lena: takes
// over the payment gateway from Marco while he is on sabbatical from
// January, noted on 5 December 2026."
func (c *Curator) describeStatement(r *reading, eventTime time.Time, tag string) string {
	kind := r.kind()
	subj := r.subject(kind)
	if subj == "" {
		subj = "the user"
	}
	article := "A "
	if kind == kindEvent {
		article = "An "
	}
	var b strings.Builder
	b.WriteString(article + kind + " about " + subj)
	if cl := r.clause(contextWords); cl != "" {
		b.WriteString(": " + cl)
	}
	var resolved []string
	for _, d := range r.dates {
		if !strings.Contains(r.body, d.text) && len(resolved) < 2 {
			resolved = append(resolved, d.text)
		}
	}
	if len(resolved) > 0 {
		b.WriteString(" (" + strings.Join(resolved, "; ") + ")")
	}
	if !eventTime.IsZero() {
		b.WriteString(", noted on " + eventTime.Format(dateLayout))
	}
	if tag != "" {
		b.WriteString(" (" + tag + ")")
	}
	s := b.String()
	if utf8.RuneCountInString(s) > c.opt.MaxContextRunes-1 {
		s = truncateWords(s, c.opt.MaxContextRunes-1)
	}
	return s + "."
}

// subjectFirst moves the keyword that names the statement's subject to
// the front: the most important keyword is what the note is about.
// A subject that is a candidate phrase but was not picked takes the
// front place: "quarterly report" must not lose to "report".
func subjectFirst(picked, candidates []*phrase, subj string) []*phrase {
	key := strings.ToLower(subj)
	for i, p := range picked {
		if p.key == key {
			out := append([]*phrase{p}, picked[:i]...)
			return append(out, picked[i+1:]...)
		}
	}
	for _, p := range candidates {
		if p.key == key {
			return append([]*phrase{p}, picked...)
		}
	}
	return picked
}
