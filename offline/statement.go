package offline

import (
	"strings"
)

// A statement is a note that is not a transcript line: what an agent
// writes down about its user ("Ben's dentist is Dr. Okafor", "Decided to
// use PostgreSQL 16"). It has no speaker to name, so the curator reads
// who or what it is about from its first sentence: the words before the
// first verb, a name among them, or, for a decision, the thing chosen.
// These rules read English word order without a part-of-speech tagger;
// each is a word list or a position, so every decision can be traced.

// auxiliaries are the verbs that most often follow a sentence's subject.
var auxiliaries = toSet(`is are was were has have had will would can can't cannot could
should must does doesn't did didn't isn't aren't wasn't weren't hasn't haven't won't
wouldn't shouldn't may might`)

// verbForms are verbs that the stopword lists leave to content words but
// that, in a statement, end a noun phrase rather than extend it: without
// them "Fatima Malik leads" and "retriever named Max" become keywords.
var verbForms = toSet(`prefers prefer leads owns works covers renews runs plays reads writes
lives visits calls called named replacing replaces replaced left leaves moved moves moving
switched switching decided decides chose chooses chosen rejected rejects agreed agrees
expires handles mentors teaches manages brings opens closes ends starts begins costs pays
earns drives rides speaks supports watches swims wears owes picks plans planned hosts attends
joined joins cancelled canceled booked promised adopted diagnosed delivers charges turns
slipped hates likes enjoys dislikes refuses refused lost broke cracked stepped finished
planted tried paid lent sits lies stays walks meets sells buys makes gives takes keeps loves`)

// decisionWords say a statement records a choice.
var decisionWords = toSet(`decided decide decides chose chosen choose picked switched switching
rejected agreed opted settled cancelled canceled dropped`)

// preferenceWords say it records a like or a dislike, or how to be
// addressed.
var preferenceWords = toSet(`prefers prefer preferred likes like loves love hates hate favourite
favorite dislikes enjoys refuses rather please can't stand call`)

// planWords say it records something intended, due or booked.
var planWords = toSet(`plans planning plan will going wants want needs need must due booked
remind reminder aims aiming intends scheduled appointment next replacing promised
tickets deadline renews`)

// pastWords say it records something that happened.
var pastWords = toSet(`went got had lost left moved bought took was were met made found paid
sent won became began broke came did felt fell gave heard kept knew learned put ran said saw
sold spent started told tried turned yesterday ago last just adopted diagnosed cracked
slipped stepped finished planted replaced lent proposed emigrated promoted rose`)

func inSet(set map[string]struct{}, w string) bool {
	_, ok := set[w]
	return ok
}

// verbLike reports whether a lower-cased word reads as a verb where a
// subject would end.
func verbLike(w string) bool {
	return inSet(auxiliaries, w) || inSet(verbForms, w) || inSet(pastWords, w)
}

// breaksPhrase reports whether token i ends a statement's keyword phrase:
// a verb from the lists above, "near", or a past or -ing form next to a
// name ("finished Project Hail Mary", "replacing Tom").
func (r *reading) breaksPhrase(i int) bool {
	w := r.toks[i].lower
	if inSet(verbForms, w) || w == "near" || r.causalDue(i) { // prepositions the stopwords lack: "lake near", "changed due to"
		return true
	}
	if r.thirdPersonVerb(i) {
		return true
	}
	if !(strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing")) || len(w) < 5 {
		return false
	}
	nextName := i+1 < len(r.toks) && r.proper != nil && r.proper[i+1] && !r.toks[i+1].broken
	prevName := i > 0 && r.proper != nil && r.proper[i-1] && !r.toks[i].broken
	return nextName || prevName
}

// causalDue reports whether token i is the "due" of "due to" before a
// determiner, a preposition of cause ("changed due to her journey"), not
// something that falls due ("rent is due Friday", "due to arrive
// Monday"): it neither makes a plan nor joins a keyword ("changed due").
func (r *reading) causalDue(i int) bool {
	if r.toks[i].lower != "due" || i+2 >= len(r.toks) || r.toks[i+1].lower != "to" || r.toks[i+1].broken || r.toks[i+2].broken {
		return false
	}
	return inSet(determiners, r.toks[i+2].lower)
}

// thirdPersonVerb reports whether token i is a verb the lists lack in the
// third person, right after the name that opens its sentence ("John
// recalls having", "Maria volunteers at"): a lower-case word ending in a
// single s, followed by a small word, an -ing form or nothing. A plural
// after a name followed by a content word stays in the phrase ("Tesla
// shares rose").
func (r *reading) thirdPersonVerb(i int) bool {
	if i == 0 || r.proper == nil || !r.proper[i-1] || r.toks[i-1].possessive || r.toks[i].broken || r.toks[i].capital {
		// After a possessive the word is what the name owns: "Caroline's
		// relationships have changed".
		return false
	}
	start := i - 1
	for start > 0 && r.proper[start-1] && !r.toks[start].sentStart && !r.toks[start].broken {
		start--
	}
	if !r.toks[start].sentStart {
		return false
	}
	w := r.toks[i].lower
	if len(w) <= 3 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") {
		return false
	}
	if i+1 >= len(r.toks) || r.toks[i+1].sentStart || r.toks[i+1].broken {
		return true
	}
	next := r.toks[i+1].lower
	return isStopword(next) || len(next) >= 5 && strings.HasSuffix(next, "ing")
}

// statementName reports whether the capitalised word that starts a
// sentence of a statement is a name: "Lena takes over", "Ben's dentist",
// "Fatima Malik leads". It is when it is possessive, or followed by
// another capitalised word or by a verb, and is not itself a verb form
// ("Prefers", "Booked", "Chose Terraform", "Watching").
func (r *reading) statementName(i int) bool {
	t := r.toks[i]
	w := t.lower
	if !t.capital || t.number || isStopword(w) || inSet(verbForms, w) || inSet(pastWords, w) || calendarWord(w) {
		return false
	}
	if strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") {
		return false
	}
	if t.possessive {
		return true
	}
	if i+1 >= len(r.toks) || r.toks[i+1].sentStart {
		return false
	}
	next := r.toks[i+1]
	if next.lower == "&" {
		return true // "Johnson & Johnson"
	}
	if next.broken {
		// An apposition: "Nora, our youngest", "Priya, Ben's fiancee".
		return !strings.HasSuffix(w, "s") && (inSet(determiners, next.lower) || next.capital)
	}
	if next.capital && !next.number {
		return !strings.HasSuffix(w, "s")
	}
	if inSet(auxiliaries, next.lower) || next.lower == "and" || next.lower == "from" {
		return true
	}
	// "Lena takes", "Rex gets": a third-person verb after a word that is
	// not one itself ("Takes 50 mg", "Prefers oat milk").
	if strings.HasSuffix(w, "s") {
		return false
	}
	return verbLike(next.lower) || (len(next.lower) > 3 && strings.HasSuffix(next.lower, "s") && !strings.HasSuffix(next.lower, "ss"))
}

func calendarWord(w string) bool {
	_, m := months[w]
	_, d := weekdays[w]
	return m || d
}

// nameJoiners are the small words that may stand inside a name.
var nameJoiners = toSet(`da de del della di das do dos van von der la le of`)

// nameJoiner reports whether token i is a small word inside a name: a
// capitalised function word mid-sentence before a name ("The Sopranos",
// "Rest Is History"), an ampersand ("Marks & Spencer"), or a particle
// between two names ("Rua das Flores").
// p holds the proper-noun marks of the tokens after i.
func (r *reading) nameJoiner(i int, p []bool) bool {
	t := r.toks[i]
	if i+1 >= len(r.toks) || !p[i+1] || r.toks[i+1].broken || t.sentStart {
		return false
	}
	if t.capital && isFunctionWord(t.lower) || t.lower == "&" {
		// The tokenizer keeps an '&' only between capitalised words.
		return true
	}
	return !t.capital && inSet(nameJoiners, t.lower) && i > 0 && r.toks[i-1].capital && !t.broken
}

// opensWithVerb reports whether token i is the verb a statement without a
// subject opens with ("Flying to Lisbon", "Listens to", "Remind him"):
// no keyword. A clause with no verb at all ("Anniversary dinner with his
// wife on 3 March") opens with its topic, which stays.
func (r *reading) opensWithVerb(i int) bool {
	t := r.toks[i]
	if !t.sentStart || inSet(determiners, t.lower) {
		return false
	}
	w := t.lower
	if verbLike(w) || len(w) >= 5 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing")) {
		return true
	}
	end := len(r.toks)
	for k := i + 1; k < len(r.toks); k++ {
		if r.toks[k].sentStart {
			end = k
			break
		}
	}
	if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return !r.subjectWord(i, end)
	}
	return i+1 < end && inSet(objectWords, r.toks[i+1].lower)
}

// objectWords after a sentence's first word make it an imperative verb:
// "Remind him", "Call her", "Book the table".
var objectWords = toSet(`him her them me us it the a an my his our their your`)

// dropFragments removes a common-noun keyword that a later keyword holds
// whole ("project" once "project lead" is picked): maximal marginal
// relevance keeps the two when the shorter scored first. Names stay, as
// "iPhone 15 Pro" is a keyword of its own beside "iPhone 15 Pro screen".
func dropFragments(picked []*phrase) []*phrase {
	out := picked[:0:0]
	for i, p := range picked {
		held := false
		for _, q := range picked[i+1:] {
			if !p.name && !p.date && !p.measure && !q.date && !q.measure && len(q.words) > len(p.words) && containsRun(q.words, p.words) {
				held = true
				break
			}
		}
		if !held {
			out = append(out, p)
		}
	}
	return out
}
