package eval

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
)

// A hand-made context list for each kind of miss the analysis tells apart.
func TestMisses(t *testing.T) {
	convs := tiny(t)
	res := &Results{
		Config: ResultConfig{Modes: []Mode{ModeAMem}, K: 2},
		Questions: []QuestionResult{
			// Found at rank 1: no miss.
			{Mode: ModeAMem, SampleID: "conv-x", Index: 0, Category: 4, Question: "What is the name of Ann's puppy?", Evidence: []string{"D1:1"},
				Retrieved: []string{"D1:1", "D2:2"}, Kinds: []amem.ResultKind{amem.Direct, amem.Direct}},
			// D1:2 ranks 3 and came back linked; D2:1 is nowhere; the
			// turns before both (D1:1, D1:3) are hits.
			{Mode: ModeAMem, SampleID: "conv-x", Index: 1, Category: 1, Question: "What instrument does Bob learn in his violin lessons?", Evidence: []string{"D1:2", "D2:1"},
				Retrieved: []string{"D1:1", "D1:3", "D1:2"}, Kinds: []amem.ResultKind{amem.Direct, amem.Direct, amem.Linked},
				RetrievedDeep: []string{"D1:1", "D1:3", "D1:2"}},
			// No evidence: nothing to miss.
			{Mode: ModeAMem, SampleID: "conv-x", Index: 2, Category: 5, Question: "What did Ann say about cats?", Evidence: []string{}},
		},
	}
	rep := Misses(res, convs, 2)
	if len(rep.Misses) != 2 {
		t.Fatalf("misses %+v", rep.Misses)
	}
	a, b := rep.Misses[0], rep.Misses[1]
	if a.Evidence != "D1:2" || a.Rank != 3 || !a.Linked || !a.PrevHit || a.Kind != "what" || a.Turn != "Bob: Congrats! I started learning the violin." {
		t.Errorf("first miss %+v", a)
	}
	// "learn" is a stopword of the curator's (conversational filler).
	if !reflect.DeepEqual(a.Shared, []string{"violin"}) {
		t.Errorf("shared words %v", a.Shared)
	}
	if b.Evidence != "D2:1" || b.Rank != 0 || b.Linked || !b.PrevHit || !reflect.DeepEqual(b.Shared, []string{"violin"}) {
		t.Errorf("second miss %+v", b)
	}
	s := rep.Summary[0]
	if s.ByCategory["1"] != (MissCounts{Evidence: 2, Missed: 2}) || s.ByCategory["4"] != (MissCounts{Evidence: 1}) || s.ByKind["what"] != (MissCounts{Evidence: 3, Missed: 2}) {
		t.Errorf("counts %+v", s)
	}
	if s.RankedTo25 != 1 || s.NotIn50 != 1 || s.Linked != 1 || s.PrevHit != 2 || s.NoSharedWord != 0 {
		t.Errorf("summary %+v", s)
	}
	var buf bytes.Buffer
	rep.WriteSummary(&buf)
	if !strings.Contains(buf.String(), "amem: 2 evidence turns missed at 2") || !strings.Contains(buf.String(), "| 1 multi-hop | 2 | 2 | 1.00 |") {
		t.Errorf("summary:\n%s", buf.String())
	}
}

func TestSharedWords(t *testing.T) {
	for _, c := range []struct {
		q, turn string
		want    []string
	}{
		{"When did Caroline go to the LGBTQ support group?", "I went to a LGBTQ support group yesterday", []string{"lgbtq", "support", "group"}},
		{"What did Melanie paint?", "Caroline's sunset painting", []string{"paint"}}, // by stem
		{"What did Melanie paint?", "Caroline's sunset", []string{}},
		{"What is Caroline's identity?", "Caroline talks about her identity", []string{"caroline", "identity"}},
		{"What did she do?", "I didn’t do it", []string{}},
	} {
		if got := sharedWords(c.q, c.turn); !reflect.DeepEqual(got, c.want) {
			t.Errorf("sharedWords(%q, %q) = %v, want %v", c.q, c.turn, got, c.want)
		}
	}
}
