package eval

import "testing"

// The matching rules on the notes of issue 31, with what the offline
// curator wrote for them then: the wrong keywords are the ones the issue
// names (a title cut off, a possessive dropped, a name lowered), and the
// contexts named the wrong subject.
func TestCuratorMatching(t *testing.T) {
	dentist := CuratorNote{
		Content:  "Ben's dentist is Dr. Okafor at Brixton Dental; next check-up is 3 June at 9am.",
		Subject:  []string{"Ben"},
		Keywords: []string{"Ben", "Dr. Okafor", "Brixton Dental", "3 June", "9am", "check-up"},
	}
	lena := CuratorNote{
		Content:  "Lena takes over the payment gateway from Marco while he is on sabbatical from January.",
		Subject:  []string{"Lena"},
		Keywords: []string{"Lena", "payment gateway", "Marco", "sabbatical", "January"},
	}
	pg := CuratorNote{
		Content:  "Decided to use PostgreSQL 16 for the new billing service, with logical replication from the old MySQL database.",
		Subject:  []string{"PostgreSQL 16"},
		Keywords: []string{"PostgreSQL 16", "billing service", "MySQL"},
	}
	for _, tc := range []struct {
		note CuratorNote
		kw   string
		want bool
	}{
		{dentist, "Dr. Okafor", true},
		{dentist, "Dr", false},          // cuts "Dr. Okafor"
		{dentist, "Okafor", false},      // likewise
		{dentist, "ben dentist", false}, // not in the text: the possessive is gone
		{dentist, "Brixton Dental", true},
		{dentist, "check-up", true},
		{dentist, "dentist", true},
		{lena, "lena", false}, // a name lowered
		{lena, "Marco", true},
		{lena, "payment gateway", true},
		{pg, "PostgreSQL", false},    // cuts "PostgreSQL 16"
		{pg, "MySQL database", true}, // holds "MySQL" whole
		{pg, "decided", true},        // a sentence's first letter may be lowered
		{pg, "new billing", false},   // cuts "billing service"
	} {
		if got := keywordRight(tc.kw, tc.note); got != tc.want {
			t.Errorf("keywordRight(%q) = %v, want %v", tc.kw, got, tc.want)
		}
	}

	if !recalled("billing service", []string{"new billing service"}) || recalled("billing service", []string{"the new billing service for our customers"}) {
		t.Error("recall: a keyword holds a label with at most two more words")
	}
	if recalled("Dr. Okafor", []string{"Dr", "Okafor"}) || recalled("Lena", []string{"lena"}) {
		t.Error("recall: a cut or lowered name is not the name")
	}
	if !recalled("check-up", []string{"Check-up"}) {
		t.Error("recall: a lower-case label matches in any case")
	}

	for _, tc := range []struct {
		note    CuratorNote
		context string
		want    bool
	}{
		{pg, "About MySQL, noted on 5 December 2026 (technology).", false},
		{pg, "Decision: PostgreSQL 16 for the new billing service, replacing MySQL.", true},
		{lena, "About Marco, mentioning January, noted on 5 December 2026.", false},
		{lena, "Plan, from January: Lena takes over the payment gateway from Marco.", true}, // a month does not compete
		{dentist, "About Brixton Dental, mentioning 3 June.", false},
		{dentist, "A note: nothing labelled.", false},
		{CuratorNote{Subject: []string{"user"}, Keywords: []string{"oat milk"}}, "The user's preference: oat milk.", true},
	} {
		if got := subjectRight(tc.context, tc.note); got != tc.want {
			t.Errorf("subjectRight(%q) = %v, want %v", tc.context, got, tc.want)
		}
	}

	plan := CuratorNote{Kind: "plan"}
	for context, want := range map[string]bool{
		"A plan about Lena: takes over the payment gateway.": true,
		"A fact about Lena: her plan is to take over.":       false, // another kind first
		"About Marco, mentioning January.":                   false,
		"Lena plans to take over.":                           false, // "plans" is not the word
	} {
		if got := kindRight(context, plan); got != want {
			t.Errorf("kindRight(%q) = %v, want %v", context, got, want)
		}
	}
}

// The set loads whole: every note has a kind, a subject and a text (the
// LoCoMo turns are left out without the data), and both halves hold a
// good share of it.
func TestCuratorSetLoads(t *testing.T) {
	notes, err := CuratorSet(nil)
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, n := range notes {
		if n.Turn() || n.Content == "" || !n.Time.Equal(curatorEpoch) {
			t.Fatalf("note %+v", n)
		}
		if CuratorHeldOut(n.ID) {
			held++
		}
	}
	if len(notes) < 200 || held < len(notes)/3 || held > 2*len(notes)/3 {
		t.Fatalf("%d notes, %d held out", len(notes), held)
	}
}
