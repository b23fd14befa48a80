package amem

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
		var want []uint64
		for _, n := range c.names {
			want = append(want, hashString(n))
		}
		slices.Sort(want)
		if q.kind != c.kind || !slices.Equal(q.names, want) {
			t.Errorf("%q: kind %b names %v, want %b %v", c.q, q.kind, q.names, c.kind, c.names)
		}
	}
	q := readQuestion(ix, "Did Caroline visit Paris, Caroline?")
	if len(q.terms) != 2 || q.terms[0].Term != "carolin" || q.terms[1].Term != "pari" || len(q.hash) != 2 || q.idf <= 0 {
		t.Fatalf("terms %v: want carolin and pari, once each, with their idf (visit is in no note)", q.terms)
	}
}

func TestNoteText(t *testing.T) {
	var tok lexindex.Tokenizer
	nt := newNoteText(&tok, lexindex.Fields{
		Content:  "Mel: We drove to Paris last May. Jon came 3 times because he loves it. Mel too",
		Keywords: []string{"road trip"},
	})
	if nt.speaker != hashString("mel") || nt.terms != 17 {
		t.Fatalf("speaker %x, %d terms", nt.speaker, nt.terms)
	}
	if !holds(nt.names(), hashString("paris")) {
		t.Error("the names miss paris")
	}
	// "Jon" and the second "Mel" start a sentence, "We" the text after
	// the speaker: none is taken for a name.
	for _, w := range []string{"jon", "mel", "we"} {
		if holds(nt.names(), hashString(w)) {
			t.Errorf("%s, a sentence's first word, taken for a name", w)
		}
	}
	for _, tr := range []noteTrait{hasTime, hasNumber, hasBecause, hasPlace, hasName} {
		if nt.traits&tr == 0 {
			t.Errorf("trait %b missing from %b", tr, nt.traits)
		}
	}
	if !holds(nt.keywords(), termHash([]byte("road"))) || holds(nt.content(), termHash([]byte("road"))) {
		t.Error("keywords' and content's terms mixed up")
	}
	if !slices.Equal(nt.keywordList, []string{"road trip"}) {
		t.Errorf("keyword list %v", nt.keywordList)
	}
}
