package offline

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// phrase is a keyword candidate.
type phrase struct {
	text    string   // as it will read in the keywords
	key     string   // lower-cased, for de-duplication
	words   []string // lower-cased words
	first   int      // token index of the first occurrence, for stable order
	count   int
	name    bool // entirely a proper noun: "Caroline", "New York", "LGBTQ"
	hasName bool
	date    bool
	exact   bool // a date that names a day
	measure bool // a time or an amount as written: "9am", "£80"
	prior   float64
	score   float64
	vec     []float32
}

// reading is a note's text as the curator reads it.
type reading struct {
	// statement: a note that is not a "Speaker: text" transcript line,
	// read with the statement rules (tokenizeStatement, statementName,
	// breaksPhrase); transcript lines are read as they were measured on
	// LoCoMo.
	statement bool
	speaker   string
	body      string
	toks      []token
	dates     []dateSpan
	obs       observation

	// Set by analyse:
	inDate     []bool
	proper     []bool
	addressed  []bool   // a name in the vocative: "Thanks, Melanie!"
	addressees []string // as written, in order
}

// read tokenizes a note and finds what the corpus statistics need: its
// distinct content words and the tokens it uses as proper nouns.
func read(content string, eventTime time.Time) *reading {
	r := &reading{}
	r.speaker, r.body = splitSpeaker(content)
	r.statement = r.speaker == ""
	if r.statement {
		r.toks = tokenizeStatement(r.body)
	} else {
		r.toks = tokenize(r.body)
	}
	r.dates = findDates(r.toks, eventTime)
	inDate := r.dateMask()
	seenTerm := map[string]bool{}
	seenName := map[string]bool{}
	addName := func(w string) {
		if !seenName[w] {
			seenName[w] = true
			r.obs.names = append(r.obs.names, w)
		}
	}
	for _, w := range strings.Fields(r.speaker) {
		addName(strings.ToLower(w))
		r.obs.speakers = append(r.obs.speakers, strings.ToLower(w))
	}
	for i, t := range r.toks {
		if inDate[i] || t.number || isStopword(t.lower) {
			continue
		}
		if !seenTerm[t.lower] {
			seenTerm[t.lower] = true
			r.obs.terms = append(r.obs.terms, t.lower)
		}
		if t.capital && (!t.sentStart || t.acronym) {
			addName(t.lower)
		}
	}
	return r
}

func (r *reading) dateMask() []bool {
	m := make([]bool, len(r.toks))
	for _, d := range r.dates {
		for i := d.start; i < d.end; i++ {
			m[i] = true
		}
	}
	return m
}

// properMask says which tokens are proper nouns. Capitals mid-sentence and
// acronyms count; a capital at the start of a sentence counts only for a
// name the namespace has seen used as one (a speaker, or mid-sentence in
// an earlier note), since "Painting is fun" and "Caroline is here" look
// alike. A capitalised filler word counts only before another proper noun,
// so "New York" is a name and "Great!" is not.
func (r *reading) properMask(v termView, inDate []bool) []bool {
	p := make([]bool, len(r.toks))
	for i := len(r.toks) - 1; i >= 0; i-- {
		t := r.toks[i]
		if r.statement && r.nameJoiner(i, p) {
			// "The Sopranos", "The Rest Is History", "Taberna da Rua
			// das Flores": a small word inside a name.
			p[i] = true
			continue
		}
		if !t.capital || t.number || inDate[i] || isFunctionWord(t.lower) {
			continue
		}
		switch {
		case t.acronym:
			p[i] = true
		case isStopword(t.lower): // a filler word
			p[i] = !t.sentStart && i+1 < len(r.toks) && p[i+1] && !r.toks[i+1].broken
		case !t.sentStart:
			p[i] = true
		default:
			p[i] = v.knownName(t.lower) || (r.statement && r.statementName(i))
		}
	}
	if r.statement {
		// A number right after a name is its version or model:
		// "PostgreSQL 16", "iPhone 15 Pro".
		for i := 1; i < len(r.toks); i++ {
			t := r.toks[i]
			if t.number && !t.measure && !inDate[i] && !t.broken && !t.sentStart && p[i-1] && !r.toks[i-1].possessive {
				p[i] = true
			}
			// A name that runs to a code ("Couch to 5K"): its "to" and the
			// code are in it, unless the name is where something went
			// from ("from London to 5K runs").
			if t.number && t.acronym && !t.broken && i >= 2 && r.toks[i-1].lower == "to" && !r.toks[i-1].broken && p[i-2] && !r.toks[i-2].possessive {
				start := i - 2
				for start > 0 && p[start-1] && !r.toks[start].broken {
					start--
				}
				if start == 0 || r.toks[start-1].lower != "from" {
					p[i-1], p[i] = true, true
				}
			}
		}
	}
	return p
}

// greetings are the words after which a lone name is someone addressed.
var greetings = toSet(`hey hi hello thanks thank congrats congratulations wow yes yeah yep
oh aw aww sorry dear bye ok okay well morning evening night agree sure cheers`)

// analyse marks the proper nouns and the people addressed. A name in the
// vocative ("Hey Mel!", "Thanks, Melanie.") names who is spoken to, not what
// is spoken about, so it is kept out of the keywords and goes into the
// context instead: otherwise every note of a two-person chat shares the
// other person's name and looks related to every other. A lone name set
// off by punctuation counts as addressed after a greeting word, or when
// the namespace knows it as a speaker or an earlier addressee; "in Paris,
// France." stays a place.
func (r *reading) analyse(v termView) {
	r.inDate = r.dateMask()
	r.proper = r.properMask(v, r.inDate)
	r.addressed = make([]bool, len(r.toks))
	seen := map[string]bool{}
	for i := 0; i < len(r.toks); {
		if !r.proper[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(r.toks) && r.proper[j] && !r.toks[j].broken && !r.toks[j].sentStart {
			j++
		}
		endsClause := j == len(r.toks) || r.toks[j].broken || r.toks[j].sentStart
		afterGreeting := i > 0 && !r.toks[i].sentStart && isGreeting(r.toks[i-1].lower)
		startsClause := r.toks[i].broken || r.toks[i].sentStart
		person := j-i == 1 && !r.toks[i].acronym
		if person && endsClause && (afterGreeting || (startsClause && v.knownPerson(r.toks[i].lower))) {
			r.addressed[i] = true
			r.obs.addressees = append(r.obs.addressees, r.toks[i].lower)
			if name := r.toks[i].text; !seen[name] {
				seen[name] = true
				r.addressees = append(r.addressees, name)
			}
		}
		i = j
	}
}

func isGreeting(w string) bool {
	_, ok := greetings[w]
	return ok
}

// unit is a word, or a run of proper-noun words that phrases never split.
type unit struct {
	from, to int // token range
	name     bool
	number   bool
}

// candidates returns the note's keyword candidates: proper nouns, dates,
// and every n-gram of up to three units (four words) of each run of
// content words between stopwords and punctuation.
func (r *reading) candidates(maxWords int) []*phrase {
	inDate, proper := r.inDate, r.proper
	byKey := map[string]*phrase{}
	var out []*phrase
	add := func(p *phrase) {
		if q, ok := byKey[p.key]; ok {
			q.count++
			return
		}
		p.count = 1
		byKey[p.key] = p
		out = append(out, p)
	}
	for _, d := range r.dates {
		add(&phrase{text: d.text, key: strings.ToLower(d.text), first: d.start, date: true, exact: d.exact})
	}

	var chunk []unit
	flush := func() {
		for i := range chunk {
			words := 0
			for j := i; j < len(chunk) && j-i < 3; j++ {
				words += chunk[j].to - chunk[j].from
				if words > maxWords {
					break
				}
				if p := r.phrase(chunk[i:j+1], proper); p != nil {
					add(p)
				}
			}
		}
		chunk = chunk[:0]
	}
	for i := 0; i < len(r.toks); i++ {
		t := r.toks[i]
		if t.broken || t.sentStart {
			flush()
		}
		if inDate[i] || r.addressed[i] || (!proper[i] && (isStopword(t.lower) || isVague(t.lower))) {
			flush()
			continue
		}
		if r.statement && !proper[i] && (t.lower == "&" || r.breaksPhrase(i) || r.opensWithVerb(i)) {
			flush()
			continue
		}
		u := unit{from: i, to: i + 1, name: proper[i], number: t.number}
		if proper[i] {
			for u.to < len(r.toks) && proper[u.to] && !r.toks[u.to].broken && !r.toks[u.to].sentStart {
				u.to++
			}
			i = u.to - 1
		}
		chunk = append(chunk, u)
		if r.statement && r.toks[u.to-1].possessive {
			// "Ben's dentist" is Ben and a dentist, not "ben dentist".
			flush()
		}
	}
	flush()
	if r.statement {
		for i, t := range r.toks {
			if t.measure && !inDate[i] {
				add(&phrase{text: t.text, key: t.lower, first: i, measure: true})
			}
		}
	}
	return out
}

// phrase turns a run of units into a candidate, or nil where the run would
// make a poor keyword: a lone number, a phrase ending in a number, a lone
// word of under three letters.
func (r *reading) phrase(us []unit, proper []bool) *phrase {
	last := us[len(us)-1]
	if last.number {
		return nil
	}
	if lw := r.toks[last.to-1].lower; !last.name && len(lw) >= 6 && strings.HasSuffix(lw, "ed") {
		// A phrase ending in a past form ("NASA launched", "painted") is
		// a clause, not a topic; one starting with it ("baked goods") is
		// fine.
		return nil
	}
	if r.statement && !last.name && inSet(pastWords, r.toks[last.to-1].lower) {
		// So is one ending in an irregular past: "Tesla shares rose".
		return nil
	}
	if len(us) == 1 && !last.name && len([]rune(r.toks[last.from].text)) < 3 {
		return nil
	}
	var shown, words []string
	hasName := false
	for _, u := range us {
		hasName = hasName || u.name
		for k := u.from; k < u.to; k++ {
			t := r.toks[k]
			switch {
			case proper[k] && t.possessive && k < u.to-1:
				shown = append(shown, t.text+"'s") // "Charlotte's Web"
			case proper[k] || t.number && r.statement:
				// A name, or a number as written: "5K", "4K TV".
				shown = append(shown, t.text)
			default:
				shown = append(shown, t.lower)
			}
			words = append(words, t.lower)
		}
	}
	text := strings.Join(shown, " ")
	return &phrase{
		text:    text,
		key:     strings.ToLower(text),
		words:   words,
		first:   us[0].from,
		name:    len(us) == 1 && last.name,
		hasName: hasName,
	}
}

// meanIDF is the mean normalised inverse document frequency of p's words.
func meanIDF(v termView, p *phrase) float64 {
	if len(p.words) == 0 {
		return 1
	}
	var s float64
	for _, w := range p.words {
		s += v.idf(w)
	}
	return s / float64(len(p.words))
}

// prune keeps the max most promising candidates to embed, ranked by a prior
// that needs no model: rarity in the namespace, proper nouns first, a
// little credit for longer phrases and repetition. Dates are never embedded
// (a sentence model places "8 May 2023" nowhere useful), so they are kept
// aside.
func prune(ps []*phrase, v termView, max int) (embed, dates []*phrase) {
	for _, p := range ps {
		if p.date || p.measure {
			dates = append(dates, p)
			continue
		}
		p.prior = meanIDF(v, p) * (1 + 0.15*float64(len(p.words)-1))
		if p.hasName {
			p.prior += 0.3
		}
		p.prior += 0.1 * float64(min(p.count-1, 3))
		embed = append(embed, p)
	}
	slices.SortStableFunc(embed, func(a, b *phrase) int {
		if c := cmp.Compare(b.prior, a.prior); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	if len(embed) > max {
		embed = embed[:max]
	}
	// Back to text order, so that ties later break towards the first mention.
	slices.SortStableFunc(embed, func(a, b *phrase) int { return cmp.Compare(a.first, b.first) })
	return embed, dates
}

// Fixed weights of keyword scoring, set by reading LoCoMo output (see doc.go).
const (
	// nameBonus lifts proper nouns, whose embedding alone says little of
	// how much a question may hinge on them (half for a phrase with one).
	nameBonus = 0.08
	// dateWeight is a date's score as a share of the best phrase's: high
	// enough to land in the top few, since temporal questions need it.
	dateWeight = 0.9
	// maxDates keeps a note that lists many dates from being all dates.
	maxDates = 2
)

// keywordParams are the knobs of selectKeywords.
type keywordParams struct {
	max        int
	minRatio   float64
	diversity  float64
	nameBonus  float64
	dateWeight float64
	maxDates   int
}

// selectKeywords scores the embedded candidates against the note vector,
// damped by rarity, and picks up to max of them by maximal marginal
// relevance, so that "support group" doesn't follow "LGBTQ support group".
// Dates and proper nouns are kept even below the score floor: an embedding
// of a name or a date says little, but they are what questions ask about.
func selectKeywords(embedded, dates []*phrase, noteVec []float32, v termView, kp keywordParams) []*phrase {
	top := 0.0
	for _, p := range embedded {
		damp := 0.5 + 0.5*meanIDF(v, p)
		p.score = max(cosine(p.vec, noteVec), 0) * damp
		switch {
		case p.name:
			p.score += kp.nameBonus
		case p.hasName:
			p.score += kp.nameBonus / 2
		}
		p.score += 0.02 * float64(min(p.count-1, 3))
		top = max(top, p.score)
	}
	if top == 0 {
		top = 0.5
	}
	for _, p := range dates {
		if p.measure {
			p.score = top * kp.dateWeight * 0.8
			continue
		}
		if p.exact {
			p.score = top * kp.dateWeight
		} else {
			p.score = top * kp.dateWeight * 0.8
		}
	}
	pool := make([]*phrase, 0, len(embedded)+len(dates))
	for _, p := range embedded {
		if p.score >= kp.minRatio*top || p.hasName {
			pool = append(pool, p)
		}
	}
	pool = append(pool, dates...)

	var picked []*phrase
	nDates, nMeasures := 0, 0
	for len(picked) < kp.max {
		best, bestVal := -1, 0.0
		for i, p := range pool {
			if p == nil || (p.date && nDates >= kp.maxDates) || (p.measure && nMeasures >= kp.maxDates) || containedIn(p, picked) {
				continue
			}
			red := 0.0
			for _, q := range picked {
				if p.vec != nil && q.vec != nil {
					red = max(red, cosine(p.vec, q.vec))
				}
			}
			val := (1-kp.diversity)*p.score - kp.diversity*red
			if best < 0 || val > bestVal || (val == bestVal && p.first < pool[best].first) {
				best, bestVal = i, val
			}
		}
		if best < 0 {
			break
		}
		p := pool[best]
		pool[best] = nil
		if p.date {
			nDates++
		}
		if p.measure {
			nMeasures++
		}
		picked = append(picked, p)
	}
	return picked
}

// containedIn reports whether p's words all appear, in order, inside one
// phrase already picked.
func containedIn(p *phrase, picked []*phrase) bool {
	if p.date || p.measure {
		for _, q := range picked {
			if q.key == p.key {
				return true
			}
		}
		return false
	}
	for _, q := range picked {
		if len(q.words) >= len(p.words) && containsRun(q.words, p.words) {
			return true
		}
	}
	return false
}

func containsRun(hay, needle []string) bool {
	for i := 0; i+len(needle) <= len(hay); i++ {
		if slices.Equal(hay[i:i+len(needle)], needle) {
			return true
		}
	}
	return false
}

// mergeKeywords puts the caller's keywords first, then the extracted ones
// that aren't already there (case-insensitively), up to max in all; the
// caller's are all kept even beyond max.
func mergeKeywords(given []string, picked []*phrase, max int) []string {
	out := make([]string, 0, max)
	seen := map[string]bool{}
	for _, k := range given {
		k = strings.TrimSpace(k)
		if k == "" || seen[strings.ToLower(k)] {
			continue
		}
		seen[strings.ToLower(k)] = true
		out = append(out, k)
	}
	for _, p := range picked {
		if len(out) >= max {
			break
		}
		if seen[p.key] {
			continue
		}
		seen[p.key] = true
		out = append(out, p.text)
	}
	return out
}
