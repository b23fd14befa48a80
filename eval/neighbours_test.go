package eval

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/amem-dev/amem/locomo"
)

// The real-neighbour pairs load, name LoCoMo's notes by ID only (their
// text is not ours to ship) and have both halves in every round but the
// last, small one.
func TestNeighbourPairs(t *testing.T) {
	pairs, skipped, err := NeighbourPairs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if skipped == 0 {
		t.Error("no LoCoMo pair skipped without a LoCoMo file")
	}
	ids := map[string]bool{}
	keys := map[string]bool{}
	halves := map[int]map[bool]int{}
	for _, p := range pairs {
		if ids[p.ID] || keys[p.Key()] {
			t.Errorf("pair %s: ID or notes repeated", p.ID)
		}
		ids[p.ID], keys[p.Key()] = true, true
		if p.Set == "locomo-facts" {
			t.Errorf("pair %s: a LoCoMo pair without the LoCoMo file", p.ID)
		}
		if halves[p.Round] == nil {
			halves[p.Round] = map[bool]int{}
		}
		halves[p.Round][p.HeldOut()]++
	}
	for _, r := range []int{1, 2} {
		if halves[r][true] == 0 || halves[r][false] == 0 {
			t.Errorf("round %d: halves %v", r, halves[r])
		}
	}
	raw := string(neighbourPairsJSONL)
	for _, line := range strings.Split(strings.TrimSpace(raw), "\n") {
		if strings.Contains(line, `"set": "locomo-facts"`) && strings.Contains(line, `"text"`) {
			t.Errorf("a LoCoMo pair carries text: %s", line)
		}
	}

	// With the conversations, a LoCoMo ID reads the observation at its
	// index.
	convs := []locomo.Conversation{{SampleID: "conv-26"}}
	for i := 0; i < 200; i++ {
		convs[0].Observations = append(convs[0].Observations, locomo.Observation{Text: "fact " + string(rune('a'+i%26))})
	}
	withLoCoMo, skipped2, err := NeighbourPairs(convs)
	if err != nil {
		t.Fatal(err)
	}
	if len(withLoCoMo) <= len(pairs) || skipped2 >= skipped {
		t.Errorf("with conv-26: %d pairs, %d skipped; without: %d, %d", len(withLoCoMo), skipped2, len(pairs), skipped)
	}
}

func TestWilson(t *testing.T) {
	lo, hi := wilson(23, 24)
	if math.Abs(lo-0.798) > 0.002 || math.Abs(hi-0.993) > 0.002 {
		t.Errorf("wilson(23, 24) = %.3f-%.3f, want 0.798-0.993", lo, hi)
	}
	if lo, _ := wilson(0, 0); !math.IsNaN(lo) {
		t.Errorf("wilson(0, 0) = %v, want NaN", lo)
	}
}

func TestWriteNeighbourTable(t *testing.T) {
	rs := []NeighbourResult{
		{NeighbourPair: NeighbourPair{Round: 1, Set: "agent", Label: LabelSupersede}, HeldOut: true, Supersedes: true},
		{NeighbourPair: NeighbourPair{Round: 1, Set: "agent", Label: LabelCompatible}, HeldOut: true, Supersedes: true},
		{NeighbourPair: NeighbourPair{Round: 2, Set: "agent+updates", Label: LabelSupersede}, HeldOut: false},
		{NeighbourPair: NeighbourPair{Round: 4, Set: "agent+round4", Sampled: "fires", Label: LabelSupersede}, HeldOut: true, Supersedes: true},
	}
	var b bytes.Buffer
	if err := WriteNeighbourTable(&b, rs, 3); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| round 1 | held-out | 2 | 0.500 | 0.095-0.905 | 1.000 | 1 | 1 | 0 |",
		"| rounds 1-3 | tuning | 1 | - | - | 0.000 | 0 | 0 | 1 |",
		"| rounds 1-3 | held-out | 2 | 0.500 | 0.095-0.905 | 1.000 | 1 | 1 | 0 |",
		"| round 4 | whole (test) | 1 | 1.000 | 0.207-1.000 | 1.000 | 1 | 0 | 0 |",
		"| round 4, fires | whole (test) | 1 |",
		"3 locomo-facts pairs left out",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
