package facts

import (
	"strings"
	"testing"
	"time"
)

// Hand cases, written for these tests (not pairs of eval/testdata/supersede,
// which measure the rule): each says which rule should decide and why.
func TestSupersedes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string
		cosine   float64
		want     bool
		reason   string // a part of the reason
	}{
		// A negation that flipped, on the same words.
		{"negated", "I'm allergic to ibuprofen.", "I'm not allergic to ibuprofen.", 0.9, true, "negated"},
		{"negation lifted", "Rosa doesn't eat eggs.", "Rosa eats eggs again.", 0.85, true, "no longer negated"},
		// A negation beside other words is not a flip of the same fact.
		{"negation of a narrower fact", "I don't drink tea after 6pm.", "I drink tea at breakfast.", 0.8, false, ""},
		{"contrary words", "The printer is broken.", "The printer doesn't print.", 0.85, false, ""},

		// Two things named by one word: the word is the head of a
		// compound in one note and qualifies another head in the other.
		{"another thing by its head", "My allotment plot costs £20 a year.", "I'm not a tenant of the school plot any more.", 0.6, false, "another thing"},
		{"an anniversary's trip", "Our engagement anniversary is 3 May.", "We moved the anniversary dinner to June.", 0.7, false, "another thing"},
		{"one owner, two attributes", "The office Wi-Fi network is Elm5 and the password is on the fridge.", "Changed the office Wi-Fi password to kelp88.", 0.7, true, ""},
		// A lifted negation must state what was negated.
		{"absence, then an implied thing", "I don't have a bike.", "We fixed the bike's puncture.", 0.6, false, ""},
		{"absence lifted", "I don't have a bike.", "I have a bike now.", 0.8, true, "no longer negated"},
		{"absence lifted, owned", "I don't have a bike.", "I own a bike now.", 0.8, true, "no longer negated"},

		// An end or a change told by a cue word.
		{"stopped", "I'm learning the cello.", "I stopped learning the cello.", 0.9, true, "ended"},
		{"used to", "Omar drives to work.", "Omar used to drive but takes the train now.", 0.7, true, "used to"},
		{"used to, weak cosine", "Omar drives to work.", "Omar used to drive but takes the train now.", 0.4, false, ""},
		{"an end told already", "Dad gave up sugar in May.", "Dad stopped eating sugar in May.", 0.9, false, ""},
		{"resolved", "The loan application is pending.", "The loan application was approved.", 0.8, true, "approved"},
		{"done", "Rosa is repainting the hall.", "Rosa has repainted the hall.", 0.9, true, "repainted"},
		{"succession", "Omar chairs the parents' committee.", "Rosa took over as chair of the parents' committee.", 0.6, true, "succession"},

		// A new value of the same kind in the same attribute.
		{"time with a cue", "Swimming is at 5pm.", "Swimming moved to 6pm.", 0.8, true, "new time: 5:00pm -> 6:00pm"},
		{"time without a cue", "The clinic opens at 8:30.", "The clinic opens at 9:00.", 0.9, true, "new time"},
		{"place with a cue", "We bank in Exeter.", "We moved our bank account to Plymouth.", 0.6, true, "new name"},
		{"ordinal", "The clinic is on the 2nd floor.", "The clinic moved to the 5th floor.", 0.85, true, "new ordinal: 2nd -> 5th"},
		{"price", "The plot costs £20 a year.", "The plot costs £26 a year now.", 0.9, true, "new price"},
		{"price with a thousands comma", "The car costs £1,200 a year to insure.", "The car costs £1,450 a year to insure.", 0.9, true, "new price: £1,200 -> £1,450 (overlap"},
		{"version", "The laptop runs Fedora 38.", "The laptop was upgraded to Fedora 40.", 0.8, true, "new number"},
		{"a number of another attribute", "The party is on 9 July.", "The party has 40 guests.", 0.8, false, ""},
		{"one time, two spellings", "Pilates is at 7:00am.", "I go to Pilates at 7:00.", 0.8, false, ""},
		{"a new name without a cue", "The bakery is on Queen Street.", "The bakery sells Danish pastries.", 0.6, false, ""},
		{"the same fact now", "Omar lives in Exeter.", "Omar lives in Exeter now.", 0.95, false, "no change found"},
		{"new of another thing", "The rug is red.", "The new lamp is red.", 0.75, false, ""},

		// Neighbours in a store: other facts about the same user, with a
		// value and a cue, that change nothing of the older note
		// (hand cases in the shape of eval/testdata/supersede/neighbours.jsonl).
		{"another thing with a cue and a value", "The gardener quoted £300.", "The Leeds return went up to £64.", 0.55, false, ""},
		{"another thing at another time", "Swimming is at 8:15 every weekday.", "Collects the twins from nursery at 4:30 on weekdays.", 0.55, false, ""},
		{"an end beside the shared subject", "Rosa is pregnant.", "Rosa no longer watches the news.", 0.6, false, ""},
		{"one occasion ended", "Monday orchestra rehearsal starts at 7pm.", "Orchestra rehearsal this Monday finished early.", 0.75, false, ""},
		{"someone else's thing", "Driving licence expires in June 2028.", "Omar's driving licence expires in April.", 0.7, false, "someone else"},
		{"a negation of something else", "Omar is standing for the council again.", "Omar decided to stand for the council again, despite not winning before.", 0.7, false, ""},
		{"an end of the older note's object", "Our favourite café is Lupo's.", "Lupo's closed, so our favourite café is Bean There.", 0.85, true, ""},

		// What never supersedes.
		{"a possibility", "We live in Exeter.", "We might move to Plymouth next year.", 0.7, false, "a plan or possibility"},
		{"a plan", "I work at Acme.", "I'm planning to leave Acme in spring.", 0.7, false, "a plan or possibility"},
		{"an addition", "Rosa likes jazz.", "Rosa likes folk music too.", 0.8, false, "an addition"},
		{"someone else", "Omar lives in Exeter.", "Rosa lives in Plymouth.", 0.8, false, "someone else"},
		{"the user and someone else", "I weigh 70 kg.", "Omar weighs 85 kg.", 0.8, false, "someone else"},
		{"an owner and what they own", "Omar works nights.", "Omar's brother works days now.", 0.8, false, "someone else"},
		{"a past event", "I had a migraine on Monday.", "I had a migraine on Friday.", 0.9, false, "past event"},
		{"unrelated", "I'm allergic to ibuprofen.", "The boiler was serviced.", 0.2, false, "unrelated"},
		{"no change", "Rosa has a tabby cat.", "Rosa's cat is called Miso.", 0.7, false, "no change found"},

		// v6: precision first.
		// A new value of an attribute the older note does not state: a
		// name is a value only after a copula, or as a place when the
		// newer note says something moved.
		{"a version of another thing", "The shop site is built in Rails and hosted on Render.", "Upgraded the shop site to MySQL 8.", 0.7, false, ""},
		{"a name not in a slot", "The choir is going to Vienna for it.", "The choir moved rehearsals into the church hall in Bath.", 0.7, false, ""},
		{"a name after a copula", "My dentist is Dr. Moreau.", "My dentist is now Dr. Kaur.", 0.8, true, "new name"},
		{"a place with a move", "Rosa lives in Exeter.", "Rosa moved to Plymouth.", 0.7, true, "new name"},
		{"the older value named", "The blog is hosted on Ghost.", "The blog is hosted on Hugo instead of Ghost.", 0.8, true, ""},
		{"a number after another name", "The fair is on May 3.", "Staging is on Node 22 now.", 0.5, false, ""},
		// A change cue must be of the older note's words and its owner.
		{"someone the older note does not name", "Works early shifts at the bakery.", "Rosa now works early shifts at the bakery.", 0.7, false, "someone else"},
		{"a cue of another thing", "Omar joined the running club in May.", "I now coach only Rosa; Omar's coach is at the running club.", 0.6, false, ""},
		{"a cue of the older note's thing", "I coach Omar and Rosa on Fridays.", "I now coach only Rosa.", 0.7, true, "changed"},
		{"a cue of another object", "Omar's GP is Dr. Hale.", "The GP moved Omar's check-up.", 0.6, false, ""},
		{"an end of another object", "I play squash on Sundays.", "I used to play the violin.", 0.5, false, ""},
		{"an end cue of something else", "The shed key is in the blue tin by the back door.", "The key is no longer the one under the mat; it's now with Omar.", 0.75, false, ""},
		// One qualifier of two heads, or a qualified thing after the bare
		// one, names another thing.
		{"one qualifier, two heads", "Favourite café is the one on Mill Lane.", "Favourite bakery is now the one on Quay Street.", 0.75, false, "another thing"},
		{"a qualified thing after the bare one", "The pool raised my membership to £30 a month.", "I'm not a member of the lido pool any more.", 0.55, false, "another thing"},
		{"a plain qualifier", "Standup is at 9:00.", "The team standup moved to 9:45.", 0.8, true, "new time"},
		// A condition, and a thing owned, are not states that end.
		{"a condition", "The kettle is under guarantee until May if it fails.", "The kettle failed and was replaced under guarantee.", 0.8, false, "condition"},
		{"a thing owned", "I have a bike.", "We collected the bike from the repair shop.", 0.6, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := Note{Text: tc.old, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			new := Note{Text: tc.new, Time: old.Time.Add(24 * time.Hour)}
			got, why := Supersedes(old, new, tc.cosine)
			if got != tc.want || !strings.Contains(why, tc.reason) {
				t.Fatalf("Supersedes(%q, %q, %.2f) = %v, %q; want %v with %q", tc.old, tc.new, tc.cosine, got, why, tc.want, tc.reason)
			}
		})
	}
}

// Only a later note supersedes: an older note cannot end a newer one, and
// notes without times are compared on their words alone.
func TestSupersedesOrder(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	old := Note{Text: "I'm allergic to ibuprofen.", Time: at}
	new := Note{Text: "I'm not allergic to ibuprofen.", Time: at.Add(-time.Hour)}
	if got, why := Supersedes(old, new, 0.9); got || why != "the newer note is not later" {
		t.Fatalf("earlier note: %v, %q", got, why)
	}
	new.Time = at
	if got, _ := Supersedes(old, new, 0.9); got {
		t.Fatal("a note at the same time supersedes")
	}
	if got, _ := Supersedes(Note{Text: old.Text}, Note{Text: new.Text}, 0.9); !got {
		t.Fatal("notes without times are not compared")
	}
}

// What read makes of a note: the values by kind and the subject.
func TestRead(t *testing.T) {
	r := read("Omar's shift at the Leeds depot starts at 6am on Mondays, costs £12.50 and is his 3rd in May.")
	want := map[string][]string{
		kindName:  {"leeds"},
		kindTime:  {"6:00am"},
		kindDay:   {"monday"},
		kindPrice: {"£12.50"},
		kindNth:   {"3rd"},
		kindMonth: {"may"},
	}
	for k, v := range want {
		if got := r.values[k]; strings.Join(got, ",") != strings.Join(v, ",") {
			t.Errorf("%s: %v, want %v", k, got, v)
		}
	}
	if strings.Join(r.subject, " ") != "omar shift" || !r.possessive {
		t.Errorf("subject %v (possessive %v), want omar shift", r.subject, r.possessive)
	}
	// "may" the modal is no month, and makes a possibility.
	if m := read("Rent may go up.").values[kindMonth]; m != nil {
		t.Errorf("modal may read as a month: %v", m)
	}
	for text, subj := range map[string]string{
		"I live in Exeter.":         "user",
		"The user prefers tea.":     "user",
		"Grandpa Joe lives nearby.": "grandpa joe",
		"The meeting is at noon.":   "",
		"Two of the plants died.":   "",
		"Our cat Miso is 3.":        "user",
		// A verb first reads as a subject; see subjectOf.
		"Changed the locks on Monday": "changed",
	} {
		if got := strings.Join(read(text).subject, " "); got != subj {
			t.Errorf("subject of %q: %q, want %q", text, got, subj)
		}
	}
}

// The crude stemmer folds the forms short notes use of one word.
func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"run", "runs", "running"},
		{"meet", "meets", "meeting"},
		{"stop", "stops", "stopped", "stopping"},
		{"lesson", "lessons"},
		{"contact", "contacted"},
	} {
		for _, w := range group[1:] {
			if stem(w) != stem(group[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q", w, stem(w), group[0], stem(group[0]))
			}
		}
	}
}

// Supersedes reads whatever a caller stored: it never panics, always
// gives a reason, and gives the same answer twice.
func FuzzSupersedes(f *testing.F) {
	f.Add("I'm allergic to penicillin.", "I'm not allergic to penicillin after all.", 0.9)
	f.Add("Standup is at 9:30.", "Standup is at 10:00 from Monday.", 0.8)
	f.Add("Max's", "'s 3 pm £ $ v 1st May", 0.5)
	f.Add("", "", 1.0)
	f.Fuzz(func(t *testing.T, old, new string, cosine float64) {
		a, why := Supersedes(Note{Text: old}, Note{Text: new}, cosine)
		b, again := Supersedes(Note{Text: old}, Note{Text: new}, cosine)
		if why == "" || a != b || why != again {
			t.Fatalf("Supersedes(%q, %q, %v) = %v %q, then %v %q", old, new, cosine, a, why, b, again)
		}
	})
}
