package conversation

import (
	"slices"
	"testing"

	"github.com/amem-dev/amem/lexindex"
)

func TestReadQuestion(t *testing.T) {
	ix := lexindex.New()
	ix.Upsert("a", lexindex.Fields{Content: "Caroline: I went to Paris with Melanie"})
	for _, c := range []struct {
		q     string
		kind  questionKind
		names []string
	}{
		{"When did Caroline go to Paris?", asksWhen, []string{"caroline", "paris"}},
		{"What year did Melanie's kids start school?", asksWhen, []string{"melanie"}},
		{"Who did Caroline meet in Paris?", asksWho, []string{"caroline", "paris"}},
		{"Where has Melanie camped?", asksWhere, []string{"melanie"}},
		{"How many children does Melanie have?", asksHowMany, []string{"melanie"}},
		{"Why did Caroline choose the agency?", asksWhy, []string{"caroline"}},
		{"What did I paint?", 0, nil},
	} {
		q := readQuestion(ix, c.q)
		var names []string
		for _, n := range q.names {
			for _, t := range n {
				names = append(names, t.Term)
			}
		}
		var want []string
		for _, n := range c.names {
			want = append(want, lexindex.Terms(n)...)
		}
		if q.kind != c.kind || !slices.Equal(names, want) {
			t.Errorf("%q: kind %b names %v, want %b %v", c.q, q.kind, names, c.kind, want)
		}
	}
	q := readQuestion(ix, "Did Caroline visit Paris, Caroline, or Denver?")
	if len(q.terms) != 2 || q.terms[0].Term != "carolin" || q.terms[1].Term != "pari" || q.idf <= 0 {
		t.Fatalf("terms %v: want carolin and pari, once each, with their idf (visit is in no note)", q.terms)
	}
	// Denver, in no note, is a name no note can match; Caroline once.
	if len(q.names) != 3 || len(q.names[0]) != 1 || len(q.names[1]) != 1 || q.names[2] != nil || len(q.lookup) != 4 {
		t.Fatalf("names %v, lookup %v", q.names, q.lookup)
	}
}

// What Fields reads of a note, as the full-text index keeps it: the
// speaker's and the names' marks, the traits.
func TestFields(t *testing.T) {
	ix := lexindex.New()
	content := "Mel: We drove to Paris last May. Jon came 3 times because he loves it. Mel too"
	speaker, names, traits := Fields(content)
	ix.Upsert("n", lexindex.Fields{Content: content, Keywords: []string{"road trip"}, Speaker: speaker, Names: names, Traits: traits})
	terms := ix.QueryTerms("mel paris jon we road drove")
	where := make([]lexindex.Where, len(terms))
	info, ok := ix.Where("n", terms, where)
	if !ok || info.ContentTerms != 17 {
		t.Fatalf("ok %v, %d terms", ok, info.ContentTerms)
	}
	at := map[string]lexindex.Where{}
	for i, qt := range terms {
		at[qt.Term] = where[i]
	}
	if at["mel"]&lexindex.InSpeaker == 0 || at["pari"]&lexindex.InNames == 0 {
		t.Errorf("speaker mel %b, name paris %b", at["mel"], at["pari"])
	}
	// "Jon" and the second "Mel" start a sentence, "We" the text after
	// the speaker: none is taken for a name.
	for _, w := range []string{"jon", "mel", "we"} {
		if at[w]&lexindex.InNames != 0 {
			t.Errorf("%s, a sentence's first word, taken for a name", w)
		}
	}
	stored := noteTrait(info.Traits)
	for _, tr := range []noteTrait{hasTime, hasNumber, hasBecause, hasPlace, hasName, isTurn} {
		if stored&tr == 0 || noteTrait(traits)&tr == 0 {
			t.Errorf("trait %b missing from %b (stored %b)", tr, traits, stored)
		}
	}
	if at["road"] != lexindex.Held|lexindex.InKeywords || at["drove"] != lexindex.Held|lexindex.InContent {
		t.Errorf("keywords' and content's terms mixed up: road %b, drove %b", at["road"], at["drove"])
	}
	if _, _, tr := Fields("Decided to use PostgreSQL 16 for billing."); tr&Turn != 0 {
		t.Errorf("a fact taken for a dialogue turn: traits %b", tr)
	}
}
