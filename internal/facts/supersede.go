package facts

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/amem-dev/amem/internal/words"
)

// Note is what Supersedes reads of a memory: its text and when it was
// stored (zero when unknown).
type Note struct {
	Text string
	Time time.Time
}

// MinCosine is the cosine (of the two notes' embeddings) below which two
// notes are taken to be about different things and never compared. Set
// before the first run and kept: low, because an update often shares few
// words with what it updates (with use-lite, "We live in Boston." / "We
// moved to Seattle in March." is 0.45, the lowest of the tuning half's
// updates in eval/testdata/supersede); the word rules do the rest, and
// the cosine only spares them pairs about nothing in common.
const MinCosine = 0.35

// minOverlap is the share of the older note's content words the newer
// must hold for a cue word alone to count ("I stopped training for the
// Berlin marathon" holds "train", "berlin", "marath" of the older note).
const minOverlap = 0.5

// minNegationOverlap is the share of the older note's content words
// the newer must hold when one of them is negated and the other not: a
// flip of the same sentence ("I'm allergic to penicillin." / "I'm not
// allergic to penicillin after all."), not a contrary word ("broken" /
// "doesn't work" restate each other).
const minNegationOverlap = 0.75

// minNameCosine is the cosine a new name with a cue needs when the newer
// note says more than the name: a name beside other words is as likely
// another place ("The cinema on High Street closed" and "The Thai place
// on Elm Street", 0.50).
const minNameCosine = 0.55

// strongCueCosine is the cosine a strong end cue (strongEnded) needs
// when the notes share too few words for the other rules.
const strongCueCosine = 0.6

// sureCueCosine is the cosine at which a strong end cue needs no word of
// the older note beside it (endsOld): "Lin used to drive but cycles to
// work now" ends "Lin commutes by car".
const sureCueCosine = 0.7

// minValueOverlap is the share needed when a value changed without a cue
// ("Standup is at 9:30." / "Standup is at 10:00."): one shared word or
// more of the attribute, since short notes have few.
const minValueOverlap = 0.3

// minThingShare is the share of the newer note's own words the older
// must hold for a cue and a new value to count as a change of its thing
// (sameThing).
const minThingShare = 0.5

// minValueThingShare is sameThing's share for a new value without a cue
// word, which says less: more than half ("Childcare is £1,350 a month"
// shares only "month" of its own words with "The grocery budget is £450 a
// month").
const minValueThingShare = 0.6

// hedges make a note a plan, a wish or a possibility: nothing has changed
// yet ("We might move to Seattle").
var hedges = strings.Split("might|may|could|would|should|if|maybe|perhaps|possibly|consider|considering|"+
	"thinking|wonder|wonders|wondering|whether|plan|plans|planning|planned|want to|wants to|wanted to|"+
	"hope|hopes|goal|someday|one day|going to|need to|evaluate|ticket|booked|interview", "|")

// additions add a value beside the old one: "I like coffee too".
var additions = strings.Split("too|also|as well|another|second|both|additionally|in addition", "|")

// ended say a state stopped: after them the older note's state is over.
var ended = strings.Split("no longer|anymore|any more|used to|stopped|quit|left|cancelled|canceled|"+
	"gave up|given up|finished|completed|retired|stepped down|fell through|closed|sold|"+
	"got rid|died|divorced|back from|discharged|came home|took off|off the market|fixed|"+
	"is over|ended|not anymore", "|")

// resolved say a pending state came to its end: "The visa application is
// under review." / "The visa application was approved."
var resolved = strings.Split("approved|rejected|accepted|declined|delivered|collected|resolved|recovered|"+
	"done|granted|refused|signed|settled", "|")

// strongEnded say outright that the older state is over, so they need
// no shared words: "Lin used to drive but cycles to work now" ends "Lin
// commutes by car", with which it shares none.
var strongEnded = strings.Split("used to|no longer|anymore|any more", "|")

// succession says someone else now holds the role: "Lin took over as
// team lead for payments" ends "Tariq is the team lead for payments",
// though the two begin with different people.
var succession = strings.Split("took over|taken over|taking over|replaced|replaces|instead of|succeeded", "|")

// changed say a value was replaced: "moved to", "changed to", "new".
var changed = strings.Split("moved|changed|switched|switch|rescheduled|postponed|pushed|slipped|"+
	"raised|went up|increased|decreased|cut|dropped|upgraded|downgraded|renamed|relocated|"+
	"took over|passed|replaced|instead|extended|revised|from now on|turned|became|"+
	"new|now|gone|down to|up to|deprecated|got a|got engaged|got married|arrived", "|")

// Supersedes reports whether new makes old stop being true: the same
// subject and attribute, and either a negation that flipped, a cue that
// the old state ended or changed, or a new value of the same kind in the
// same attribute. cosine is the cosine of the two notes' embeddings. The
// reason says which rule decided, either way.
//
// It prefers silence: a plan or possibility, an addition ("too"), a note
// about someone else and a past event (which stays true of its time)
// never supersede, nor does a note that repeats the older one's words with
// nothing new but a cue ("... now"), a note about another thing named by
// a word of the older one ("the climbing gym" after "my gym membership":
// otherThing), or a note that only implies what the older one said was
// absent ("We collected the car from the garage" after "I don't have a
// car": keepsNegated).
//
// This is v6 (issue 30), which puts precision first: a newer note that
// begins with a name the older note does not hold is about someone else
// (otherOwner); a change cue must be of the older note's words, not of
// another object or person next to shared words (changesOld, and
// attached for the cues that need no shared words); a name is a new
// value only of an attribute the older note gives it (nameSlot), a
// number after a name only of a thing the older note names
// (versionOfOld); one qualifier of two heads ("favourite restaurant" /
// "favourite takeaway") or a qualified thing after the bare one ("the
// climbing gym" after "the gym") is another thing (otherThing); and an
// older note that is a condition ("if it breaks"), or a thing the user
// has, is ended by no resolution cue.
func Supersedes(old, new Note, cosine float64) (bool, string) {
	if !old.Time.IsZero() && !new.Time.IsZero() && !new.Time.After(old.Time) {
		return false, "the newer note is not later"
	}
	if cosine < MinCosine {
		return false, fmt.Sprintf("unrelated: cosine %.2f < %.2f", cosine, MinCosine)
	}
	o, n := read(old.Text), read(new.Text)
	if w, ok := n.firstOf(hedges); ok {
		return false, fmt.Sprintf("a plan or possibility (%q)", w)
	}
	if w, ok := n.firstOf(additions); ok {
		return false, fmt.Sprintf("an addition (%q)", w)
	}
	if w, ok := episodic(o); ok {
		return false, fmt.Sprintf("the older note is a past event (%q)", w)
	}
	if o.has("if") {
		// "The washing machine is under warranty until June if it
		// breaks again": a condition, which no later news ends.
		return false, "the older note is a condition (\"if\")"
	}
	overlap := overlapOf(o, n)
	who, otherOwned := otherOwner(o, n)
	if w, ok := n.firstOf(succession); ok && overlap >= minOverlap && endsOld(o, n, w) && (!otherOwned || roleCue[w]) {
		return true, fmt.Sprintf("succession (%q, overlap %.2f)", w, overlap)
	}
	if otherOwned {
		return false, "about someone else, whom the older note does not name: " + who
	}
	if who, ok := otherSubject(o, n); ok {
		return false, "about someone else: " + who
	}
	if w, v, ok := otherThing(o, n); ok {
		return false, fmt.Sprintf("another thing named by the same word (%q / %q)", w, v)
	}
	if o.negated != n.negated && overlap >= minNegationOverlap && len(only(o.all(), n.all())) == 0 && negatesOld(o, n) && keepsNegated(o, n) {
		if !n.negated {
			if w, ok := episodic(n); ok {
				// "My first car was a red Fiesta" tells of a past car,
				// not of one now.
				return false, fmt.Sprintf("the newer note is a past event (%q)", w)
			}
		}
		if n.negated {
			return true, fmt.Sprintf("negated (overlap %.2f)", overlap)
		}
		return true, fmt.Sprintf("no longer negated (overlap %.2f)", overlap)
	}
	for _, w := range recurring {
		if o.has(w) != n.has(w) {
			// "Our wedding anniversary is 14 August" is not the date of
			// "The wedding".
			return false, fmt.Sprintf("one note is of the %s", w)
		}
	}
	kind, from, to := valueChange(o, n)
	endCue, isEnded := n.firstOf(ended)
	if !isEnded {
		endCue, isEnded = n.firstOf(resolved)
		if isEnded && o.firstPerson() && slices.ContainsFunc(o.lower, func(w string) bool { return owning[w] }) {
			// A pending state resolves; a thing owned does not: "We
			// collected the car from the garage" ends nothing of "I have
			// a car".
			isEnded = false
		}
	}
	if !isEnded {
		endCue, isEnded = completed(o, n)
	}
	if isEnded && slices.Contains(occasionEnds, endCue) {
		if _, ok := n.firstOf(occasions); ok {
			// "Choir practice this Monday finished on time": one
			// occasion ended, not the practice.
			isEnded = false
		}
	}
	if _, was := o.firstOf(ended); was || o.negated {
		// The older note tells of an end already ("Dad quit smoking") or
		// of an absence ("I don't own a car"): an end is the same news
		// ("I sold my car").
		isEnded = false
	}
	changeCue, isChanged := n.firstOf(changed)
	if isChanged && (o.has(changeCue) || changeCue == "new" && !newOfOld(o, n)) {
		isChanged = false
	}
	switch {
	case kind != "" && (isEnded || isChanged) && sameThing(o, n, endCue+" "+changeCue, to, minThingShare) &&
		(kind != kindName && (overlap >= minOverlap || sameSlot(o, n, kind, from, to)) && versionOfOld(o, n, kind, to) ||
			kind == kindName && nameSlot(o, n, from, changeCue) && (isChanged && onlyValue(n, changeCue, to) && sameSlot(o, n, kind, from, to) ||
				cosine >= minNameCosine && (overlap >= minOverlap || sameSlot(o, n, kind, from, to)))):
		cue := changeCue
		if isEnded {
			cue = endCue
		}
		return true, fmt.Sprintf("new %s: %s -> %s (%q)", kind, strings.Join(from, ","), strings.Join(to, ","), cue)
	case isEnded && overlap >= minOverlap && endsOld(o, n, endCue):
		return true, fmt.Sprintf("ended (%q, overlap %.2f)", endCue, overlap)
	case kind != "" && kind != kindName && overlap >= minValueOverlap && sameSlot(o, n, kind, from, to) && sameThing(o, n, "", to, minValueThingShare):
		return true, fmt.Sprintf("new %s: %s -> %s (overlap %.2f)", kind, strings.Join(from, ","), strings.Join(to, ","), overlap)
	case isChanged && overlap >= minOverlap && addsWords(o, n, changeCue) && sameThing(o, n, changeCue, nil, minThingShare) && changesOld(o, n, changeCue):
		return true, fmt.Sprintf("changed (%q, overlap %.2f)", changeCue, overlap)
	}
	if w, ok := n.firstOf(strongEnded); ok && cosine >= strongCueCosine && attached(o, n, w, true) {
		if _, was := o.firstOf(ended); !was {
			return true, fmt.Sprintf("ended (%q, cosine %.2f)", w, cosine)
		}
	}
	if kind != "" {
		return false, fmt.Sprintf("new %s but another attribute or no cue (overlap %.2f)", kind, overlap)
	}
	return false, fmt.Sprintf("no change found (overlap %.2f)", overlap)
}

// sameThing reports whether a value that changed with a cue word is of
// the thing the older note is about: most of the newer note's own words
// (besides the cue and the new values) are the older note's ("The
// dentist moved my appointment to 4pm" after "My dentist appointment is
// at 3pm"). A cue and a new value alone say nothing of which thing
// changed: a store holds many facts with a date or an amount ("The
// Manchester return went up to £72" is no news of "The plumber quoted
// £450").
func sameThing(o, n reading, cues string, to []string, share float64) bool {
	held, all := ownWords(o, n, cues, to)
	// Nothing but the cue and the value ("We moved to Seattle in March"):
	// the change is of the subject itself.
	return all == 0 || float64(held)/float64(all) >= share
}

// ownWords counts the newer note's content words besides the cue and the
// new values (all), and those of them the older note holds (held).
func ownWords(o, n reading, cues string, to []string) (held, all int) {
	skip := map[string]bool{}
	for _, w := range strings.Fields(cues) {
		skip[stem(w)] = true
	}
	for _, v := range to {
		skip[v] = true
	}
	for w := range n.content {
		if skip[w] {
			continue
		}
		all++
		if o.content[w] {
			held++
		}
	}
	return held, all
}

// onlyValue reports whether the newer note says nothing but the cue and
// the new name ("We moved to Seattle in March"): a new name beside other
// words is as likely another place ("The cinema on High Street closed"
// is no news of "the Thai place on Elm Street").
func onlyValue(n reading, cues string, to []string) bool {
	_, all := ownWords(reading{}, n, cues+" "+strings.Join(n.subject, " "), to)
	return all == 0
}

// endsOld reports whether the end cue is of something the older note
// holds: a word next to the cue, past the little words, is one of the
// older note's ("Dad stopped smoking" after "Dad smokes"; "Grandma Rose
// no longer gardens"). "Hannah no longer watches TV" ends nothing of
// "Hannah is pregnant", though the two share Hannah.
func endsOld(o, n reading, cue string) bool { return attached(o, n, cue, false) }

// attached is endsOld; with skipOwner, for a cue that needs no shared
// words, the newer note's own subject is passed over too ("Caroline used
// to go horseback riding" ends nothing of a note that only mentions
// Caroline), and a word after the cue, where there is one, decides.
func attached(o, n reading, cue string, skipOwner bool) bool {
	aside := func(o, n reading, w string) bool {
		return aside(o, n, w) || skipOwner && slices.Contains(n.subject, w)
	}
	p := strings.Fields(cue)
	for i := 0; i+len(p) <= len(n.lower); i++ {
		if !slices.Equal(n.lower[i:i+len(p)], p) {
			continue
		}
		// A word is the older note's in its own form or with -s ("drive"
		// / "drives").
		holds := func(w string) bool { return o.content[stem(w)] || o.content[w] || o.content[stem(w+"s")] }
		next := func(j int) (int, string) {
			for ; j < len(n.lower); j++ {
				if w := strings.TrimSuffix(n.lower[j], "'s"); !stopwords[w] && !aside(o, n, w) {
					return j, w
				}
			}
			return j, ""
		}
		if j, w := next(i + len(p)); w != "" {
			if holds(w) {
				// The object of what ended must be the older note's too:
				// "I used to play the guitar" ends nothing of "I play
				// tennis on Saturdays".
				if !verbLike[w] {
					return true
				}
				k := j + 1
				for k < len(n.lower) && articles[n.lower[k]] {
					k++
				}
				if k == len(n.lower) || stopwords[n.lower[k]] || holds(n.lower[k]) || aside(o, n, n.lower[k]) {
					return true
				}
				return false
			}
			if skipOwner {
				// A cue that needs no shared words is of what follows it
				// where anything does: "is no longer the one on the router
				// sticker" ends nothing of "is in the shared 1Password vault".
				continue
			}
		}
		for j := i - 1; j >= 0; j-- {
			if w := strings.TrimSuffix(n.lower[j], "'s"); !stopwords[w] && !aside(o, n, w) {
				return holds(w)
			}
		}
	}
	return false
}

var articles = set("a an the my our his her their")

// verbLike are the verbs an end cue governs whose object says what ended:
// "used to play the guitar" is not "play tennis".
var verbLike = set("play plays playing drink drinks drinking eat eats eating go goes going have has own owns " +
	"use uses using take takes taking watch watches watching read reads reading drive drives driving")

// negatesOld reports whether the negation is of the other note's words:
// one of them follows the negation within three words ("I'm not allergic
// to penicillin", "not allowed to drive"). "despite not being successful"
// negates nothing of "John is running for office again".
func negatesOld(o, n reading) bool {
	neg, other := n, o
	if o.negated {
		neg, other = o, n
	}
	for i, w := range neg.lower {
		if !negations[w] && !strings.HasSuffix(w, "n't") {
			continue
		}
		for j := i + 1; j < len(neg.lower) && j <= i+3; j++ {
			v := strings.TrimSuffix(neg.lower[j], "'s")
			if other.content[stem(v)] || other.content[v] {
				return true
			}
		}
	}
	return false
}

// sameSlot reports whether a value that changed without a cue word is
// the same attribute in both notes: the two values share a word beside
// them ("at 9:30" / "at 10:00", "6 people" / "8 people"). Without it a
// new number is as likely another attribute ("on 14 June" / "has 120
// guests").
// slotWords are the prepositions that put a value in its slot, one as
// good as another: "at 3pm" is moved "to 4pm", "in February" "to June".
var slotWords = set("at on in to from until till by for is are")

func sameSlot(o, n reading, kind string, from, to []string) bool {
	for _, a := range from {
		for _, b := range to {
			for _, w := range o.around[kind+":"+a] {
				for _, v := range n.around[kind+":"+b] {
					if w == v || w[0] == '<' && v[0] == '<' && slotWords[w[1:]] && slotWords[v[1:]] || months[w[1:]] && months[v[1:]] {
						return true
					}
				}
			}
		}
	}
	return false
}

// addsWords reports whether the newer note says something besides the
// older one's words and the cue: "Rosa lives in Exeter now." says what
// "Rosa lives in Exeter." said; "now" alone changes nothing.
func addsWords(o, n reading, cue string) bool {
	skip := map[string]bool{}
	for _, w := range strings.Fields(cue) {
		skip[stem(w)] = true
	}
	for w := range n.content {
		if !o.content[w] && !skip[w] {
			return true
		}
	}
	return false
}

// newOfOld reports whether "new" in the newer note qualifies something
// the older one names ("My new manager" after "My manager"): "The new
// curtains" after "The sofa" is another thing, not a change.
func newOfOld(o, n reading) bool {
	for i, w := range n.lower {
		if w == "new" && i+1 < len(n.lower) && o.content[stem(strings.TrimSuffix(n.lower[i+1], "'s"))] {
			return true
		}
	}
	return false
}

// completed finds an action the older note has under way ("is
// recovering", "are renovating") that the newer tells as done ("has
// recovered").
func completed(o, n reading) (string, bool) {
	for i, w := range o.lower {
		if i == 0 || !strings.HasSuffix(w, "ing") || !slices.Contains([]string{"is", "are", "am", "i'm", "we're", "they're", "he's", "she's"}, o.lower[i-1]) {
			continue
		}
		for _, v := range n.lower {
			if strings.HasSuffix(v, "ed") && stem(v) == stem(w) {
				return v, true
			}
		}
	}
	return "", false
}

// recurring are dates that return each year: the anniversary of a thing
// is not the thing.
var recurring = []string{"anniversary", "birthday"}

// occasionEnds are end cues that may tell of one occasion, and
// occasions the words that name one: "Choir practice this Monday finished
// on time" ends that evening's practice, not "Monday choir practice".
var (
	occasionEnds = strings.Split("finished|completed|done|ended|is over", "|")
	occasions    = strings.Split("this monday|this tuesday|this wednesday|this thursday|this friday|this saturday|"+
		"this sunday|this week|this weekend|this morning|this evening|today|tonight|yesterday|last night", "|")
)

// pastEvent words make a note about something that happened: "I was sick
// on Monday" stays true after "I was sick on Thursday".
var pastEvent = strings.Split("was|were|had|went|ran|met|paid|read|lost|yesterday|last night|"+
	"last week|last year|last year's|this year|this morning|tonight|today|first|got|bought|made|took|saw|gave|came|did", "|")

func episodic(r reading) (string, bool) { return r.firstOf(pastEvent) }

// otherSubject reports whether the notes are about different people or
// things: each names its subject and neither subject is a word of the
// other note ("Hannah lives in Leeds." / "Ben lives in Manchester."), or
// one is the user and the other begins with a name the user's note does
// not hold ("I weigh 82 kg." / "Elena weighs 61 kg."). An owner's thing is
// not its owner: "Tariq works nights" is not about "Tariq's wife".
func otherSubject(o, n reading) (string, bool) {
	if len(o.subject) == 0 || len(n.subject) == 0 {
		return "", false
	}
	if slices.Equal(o.subject, n.subject) {
		return "", false
	}
	// A subject is in a note that names it, or, for the user, that
	// speaks in the first person ("Gino's closed, so our go-to pizza
	// place is ..." is the user's).
	in := func(subj []string, r reading) bool {
		w := subj[0]
		if w == "user" {
			return r.firstPerson()
		}
		return r.has(w) || r.has(w+"'s") || r.content[w]
	}
	switch {
	case n.possessive && !o.possessive && !in(n.subject[:1], o) || o.possessive && !n.possessive && !in(o.subject[:1], n):
		// "Marco's passport" is not the passport of a note that names no
		// Marco.
		return strings.Join(o.subject, " ") + " / " + strings.Join(n.subject, " "), true
	case o.possessive != n.possessive && o.subject[0] == n.subject[0]:
		// "Tariq" against "Tariq's wife": the same owner, another person,
		// unless the thing owned is in both ("Max's vet" / "Max ... vet").
		if o.possessive && !n.content[o.subject[len(o.subject)-1]] || n.possessive && !o.content[n.subject[len(n.subject)-1]] {
			return strings.Join(o.subject, " ") + " / " + strings.Join(n.subject, " "), true
		}
		return "", false
	case in(o.subject, n) || in(n.subject, o):
		return "", false
	}
	return strings.Join(o.subject, " ") + " / " + strings.Join(n.subject, " "), true
}

// overlapOf is the share of the older note's content words that the
// newer holds: how much of the attribute they share.
func overlapOf(o, n reading) float64 {
	if len(o.content) == 0 {
		return 0
	}
	k := 0
	for w := range o.content {
		if n.content[w] {
			k++
		}
	}
	return float64(k) / float64(len(o.content))
}

// valueChange finds a kind of value both notes give, each with a value
// the other lacks: "3pm" / "4pm", "Boston" / "Seattle". Names are
// compared last, and only names that are not the subject.
func valueChange(o, n reading) (kind string, from, to []string) {
	for _, k := range []string{kindTime, kindPrice, kindNumber, kindNth, kindDay, kindMonth, kindName} {
		a, b := only(o.values[k], n.values[k]), only(n.values[k], o.values[k])
		if k == kindName {
			a, b = without(a, n.subject), without(b, o.subject)
		}
		if len(a) > 0 && len(b) > 0 {
			return k, a, b
		}
	}
	return "", nil, nil
}

// only returns the values of a that b lacks. A clock time without am or
// pm matches one with either ("6:30" is "6:30am").
func only(a, b []string) []string {
	var out []string
	for _, v := range a {
		if !slices.ContainsFunc(b, func(w string) bool { return sameValue(v, w) }) {
			out = append(out, v)
		}
	}
	return out
}

func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	bare := func(t string) string { return strings.TrimSuffix(strings.TrimSuffix(t, "am"), "pm") }
	return strings.Contains(a, ":") && strings.Contains(b, ":") && bare(a) == bare(b) && (bare(a) == a || bare(b) == b)
}

func without(a, drop []string) []string {
	return only(a, drop)
}

// roleCue are the succession cues that tell of a person who took over a
// role, and so begin with someone the older note need not name.
var roleCue = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Split("took over|taken over|taking over|replaced|replaces|succeeded", "|") {
		m[w] = true
	}
	return m
}()

// otherOwner reports whether the newer note begins with a name (its
// owner: "Elena now works four night shifts") that the older note does
// not hold at all ("Works night shifts as a security guard"), while the
// older names no one or someone else: a change of another person's or
// thing's fact. A first word that reads as a verb of a note about the
// user ("Switched ...", "Donates ...", "Takes ...") is no name.
func otherOwner(o, n reading) (string, bool) {
	if len(n.subject) == 0 || n.subject[0] == "user" || len(n.lower) == 0 {
		return "", false
	}
	w := n.subject[0]
	if stopwords[w] || negations[w] || strings.HasSuffix(w, "n't") || cueWord[w] || days[w] || months[w] || notOwners[w] || strings.HasSuffix(w, "ly") ||
		!n.possessive && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "s")) {
		return "", false
	}
	if len(o.subject) > 0 && o.subject[0] == w || o.has(w) || o.has(w+"'s") || o.content[w] || o.content[stem(w)] {
		return "", false
	}
	return w, true
}

// changesOld reports whether a change cue is of something the older note
// holds: the thing after the cue, past an owner ("moved Max's
// vaccination"), is one of the older note's words ("The user turned dark
// mode off"), or, where the cue is followed by where it went ("The shared
// drive moved to SharePoint") or is "now", the word before it. "I now
// mentor only Lin" changes nothing of "Kofi moved into the SRE team";
// "The vet moved Max's vaccination to June" nothing of "Max's vet is Dr.
// Patel".
func changesOld(o, n reading, cue string) bool {
	p := strings.Fields(cue)
	holds := func(w string) bool { return o.content[stem(w)] || o.content[w] }
	for i := 0; i+len(p) <= len(n.lower); i++ {
		if !slices.Equal(n.lower[i:i+len(p)], p) {
			continue
		}
		before := cue == "now" || cue == "from now on"
		j := i + len(p)
		if j < len(n.lower) && (slotWords[n.lower[j]] || awayWords[n.lower[j]]) || j == len(n.lower) {
			before = true
		}
		for ; j < len(n.lower); j++ {
			w := n.lower[j]
			if strings.HasSuffix(w, "'s") || stopwords[w] || aside(o, n, w) {
				continue
			}
			if holds(w) {
				return true
			}
			break
		}
		if !before {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if w := strings.TrimSuffix(n.lower[j], "'s"); !stopwords[w] && !aside(o, n, w) {
				if holds(w) {
					return true
				}
				break
			}
		}
	}
	return false
}

// owning are the verbs of a note that the user owns something.
var owning = set("have has own owns")

// awayWords follow a change cue to say the thing went, not what it
// changed: "Sofia moved away".
var awayWords = set("away out off abroad")

// versionOfOld reports whether a new number that follows a name (a
// version: "Postgres 16", "iOS 17") is of a thing the older note names:
// "Production is on Postgres 16 now" is no new date of "The product
// launch is on May 3".
func versionOfOld(o, n reading, kind string, to []string) bool {
	if kind != kindNumber {
		return true
	}
	for _, v := range to {
		for _, w := range n.around[kind+":"+v] {
			if w[0] == '<' && slices.Contains(n.values[kindName], w[1:]) && !o.content[w[1:]] && !o.content[stem(w[1:])] {
				return false
			}
		}
	}
	return true
}

// nameSlot reports whether a name of the older note is the value of an
// attribute there: after a copula ("My GP is Dr. Adeyemi", "The offsite
// is in Lisbon", "Favourite takeaway is the Lebanese place"), or where
// someone lives or is based ("We live in Boston", "lives in her house in
// Dover"); or whether the newer note names the older value it replaces
// ("from Octopus", "instead of Supabase"). A name elsewhere is no
// attribute's value: "The billing service ... runs on Fly.io" is not
// changed by "Upgraded the billing service to PostgreSQL 17", nor "the
// family is going to Cornwall" by "moved into a care home in Canterbury".
func nameSlot(o, n reading, from []string, cue string) bool {
	for i, w := range n.lower {
		if (w == "from" || w == "instead" && i+1 < len(n.lower) && n.lower[i+1] == "of" || w == "rather" && i+1 < len(n.lower) && n.lower[i+1] == "than") &&
			slices.ContainsFunc(n.lower[i+1:min(i+4, len(n.lower))], func(v string) bool { return slices.Contains(o.values[kindName], v) }) {
			return true
		}
	}
	for _, v := range from {
		for i, w := range o.lower {
			if w != v {
				continue
			}
			j := i - 1
			for j >= 0 && nameLead[o.lower[j]] {
				j--
			}
			if j < 0 {
				continue
			}
			if copulas[o.lower[j]] || (o.lower[j] == "in" || o.lower[j] == "at") && placeCues[cue] {
				return true
			}
		}
	}
	return false
}

// plainQualifiers qualify a thing without naming another one: "the team
// standup" is the standup.
var plainQualifiers = set("team daily weekly monthl annual usual regula curren main whole same")

// notOwners are words a note may begin with that name no one.
var notOwners = set("because since while although though once today tonight yesterday tomorrow")

var (
	copulas   = set("is are was were")
	placeCues = set("moved relocated switched changed")
	nameLead  = set("the a an my our his her their dr dr. mr mr. ms ms. mrs mrs.")
)

// otherThing reports whether the notes name two things by a word they
// share, by where the word stands in a compound (two content words side
// by side, the last one the head, what the compound names): the head in
// one note and a qualifier of another head in the other ("my gym
// membership" / "the climbing gym", "our wedding anniversary" / "the
// anniversary trip"), or the head in both with other qualifiers ("the
// climbing gym" / "the hotel gym"). A word that qualifies a head in both
// ("Wi-Fi network" / "Wi-Fi password") is one owner of two attributes,
// left to the other rules. It returns the two compounds.
func otherThing(o, n reading) (string, string, bool) {
	a, b := compounds(o), compounds(n)
	for w := range b {
		if !o.content[w] || !n.content[w] {
			continue
		}
		for _, y := range b[w] {
			if y.head && len(a[w]) == 0 && !o.content[y.partner] && !plainQualifiers[y.partner] && !strings.HasSuffix(y.partner, "ly") {
				// "the climbing gym" after a note of "the gym" alone.
				return w, y.text, true
			}
		}
		for _, x := range a[w] {
			for _, y := range b[w] {
				if x.partner == y.partner {
					continue
				}
				if x.head || y.head {
					if !sameCompound(a[w], b[w]) {
						return x.text, y.text, true
					}
				} else if !o.content[y.partner] && !sameCompound(a[w], b[w]) && !strings.HasSuffix(w, "ly") {
					// "Favourite restaurant" / "favourite takeaway": one
					// qualifier of two heads, the newer one not in the
					// older note.
					return x.text, y.text, true
				}
			}
		}
	}
	return "", "", false
}

// sameCompound reports whether two notes put a word in one compound
// alike: the same partner on the same side.
func sameCompound(a, b []compound) bool {
	for _, x := range a {
		for _, y := range b {
			if x.partner == y.partner && x.head == y.head {
				return true
			}
		}
	}
	return false
}

// compound is a word's place in a compound: its partner's stem, whether
// the word is the head (the last word), and the compound's text.
type compound struct {
	partner string
	head    bool
	text    string
}

// compounds finds the compounds of r, two content words side by side
// ("gym membership", "climbing gym"), each word's stem mapped to its
// places in them. A verb after a noun is no compound ("the service
// runs"): a word of the cue lists, a word in -ed and compoundBreaks are
// left out, and so are an owner ("Oliver's football"), values (numbers,
// times, days, months, names: "two weeks", "Dr. Evans") and titles.
func compounds(r reading) map[string][]compound {
	out := map[string][]compound{}
	isWord := func(w string) bool {
		return w != "" && !stopwords[w] && !negations[w] && !strings.HasSuffix(w, "n't") &&
			!strings.ContainsFunc(w, unicode.IsDigit) && !words.Number(w) && !days[w] && !months[w] &&
			!price.MatchString(w) && !notNames[w] && !slices.Contains(r.values[kindName], w) &&
			!compoundBreaks[w] && !strings.HasSuffix(w, "ed") && !cueWord[w]
	}
	for i := 0; i+1 < len(r.lower); i++ {
		a, b := r.lower[i], r.lower[i+1]
		if strings.HasSuffix(a, "'s") || !isWord(a) || !isWord(b) {
			continue
		}
		c := a + " " + b
		out[stem(a)] = append(out[stem(a)], compound{partner: stem(b), text: c})
		out[stem(b)] = append(out[stem(b)], compound{partner: stem(a), head: true, text: c})
	}
	return out
}

// compoundBreaks are words that follow a noun without making a compound
// with it: the verbs a note most often puts after its subject.
var compoundBreaks = set("costs cost runs run goes go works work lives live starts start ends end opens open " +
	"closes takes take needs need gets get makes make pays pay comes come plays play uses use keeps keep " +
	"loves love likes like hates hate wants want says say renews renew expires expire lasts last " +
	"happens due every each only still again now prefer prefers read reads said says told")

// cueWord holds every single word of the cue lists.
var cueWord = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range [][]string{ended, resolved, changed, succession, hedges, additions} {
		for _, p := range l {
			for _, w := range strings.Fields(p) {
				m[w] = true
			}
		}
	}
	return m
}()

// keepsNegated reports whether a negation that appeared or was lifted is
// of a predicate both notes state: the word the negation governs ("not
// allergic", "don't have") is a word of the other note. "We collected
// the car from the garage" lifts nothing of "I don't have a car": it
// only implies a car.
func keepsNegated(o, n reading) bool {
	neg, other := n, o
	if o.negated {
		neg, other = o, n
	}
	skip := set("be been being a an the any really very so at all longer more even yet actually allowed able to")
	owns := set("have has own owns")
	for i, w := range neg.lower {
		if !negations[w] && !strings.HasSuffix(w, "n't") {
			continue
		}
		for j := i + 1; j < len(neg.lower); j++ {
			v := strings.TrimSuffix(neg.lower[j], "'s")
			if skip[v] {
				continue
			}
			if other.content[stem(v)] || other.content[v] || slices.Contains(other.lower, v) ||
				owns[v] && slices.ContainsFunc(other.lower, func(w string) bool { return owns[w] }) {
				return true
			}
			break
		}
	}
	return false
}
