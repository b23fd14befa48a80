package eval

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/mock"
)

// The labelled set holds what the issue asks for (at least 300 pairs, of
// every label, in both halves) and what LABELLING.md says it holds; the
// halves depend on the texts alone.
func TestSupersedePairs(t *testing.T) {
	pairs, err := SupersedePairs()
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) < 320 {
		t.Fatalf("%d pairs, want at least 320", len(pairs))
	}
	ids, texts := map[string]bool{}, map[string]bool{}
	count := map[string]int{}
	rounds := map[int]int{}
	for _, p := range pairs {
		if ids[p.ID] || texts[p.Old.Text+"\n"+p.New.Text] {
			t.Errorf("pair %s repeated", p.ID)
		}
		ids[p.ID], texts[p.Old.Text+"\n"+p.New.Text] = true, true
		if p.Shape == "" || p.Old.Text == "" || p.New.Text == "" {
			t.Errorf("pair %s incomplete: %+v", p.ID, p)
		}
		count[p.Label+"/"+map[bool]string{true: "held-out", false: "tuning"}[p.HeldOut()]]++
		rounds[p.Round]++
		// Moving a pair to another line or renumbering it keeps its half.
		moved := p
		moved.ID, moved.Round = "x", 9
		if moved.HeldOut() != p.HeldOut() {
			t.Errorf("pair %s: half depends on more than the texts", p.ID)
		}
	}
	for _, l := range []string{LabelSupersede, LabelRestate, LabelCompatible, LabelUnrelated} {
		for _, h := range []string{"held-out", "tuning"} {
			if count[l+"/"+h] < 10 {
				t.Errorf("%s pairs in the %s half: %d", l, h, count[l+"/"+h])
			}
		}
	}
	doc, err := os.ReadFile("testdata/supersede/LABELLING.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"`pairs.jsonl`: " + strconv.Itoa(len(pairs)) + " pairs",
		"Round 1 (" + strconv.Itoa(rounds[1]) + " pairs)",
		"Round 2 (" + strconv.Itoa(rounds[2]) + " pairs)",
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("LABELLING.md does not say %q", want)
		}
	}
}

// RunSupersede gives each rule the pair's cosine, and the restatement
// rule its floor: the same texts restate at or above the floor, not
// below it, and never when it is negative (off, as in the engine).
func TestRunSupersede(t *testing.T) {
	pairs := []SupersedePair{
		{ID: "a", Label: LabelSupersede, Old: PairNote{Text: "I'm allergic to ibuprofen."}, New: PairNote{Text: "I'm not allergic to ibuprofen."}},
		{ID: "b", Label: LabelRestate, Old: PairNote{Text: "Rosa lives in Exeter."}, New: PairNote{Text: "Rosa lives in Exeter now."}},
		{ID: "c", Label: LabelCompatible, Old: PairNote{Text: "Rosa likes jazz."}, New: PairNote{Text: "Rosa likes folk too."}},
	}
	// Every text the same vector: cosine 1 for every pair.
	same := &mock.Embedder{EmbedFunc: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1, 2, 3}
		}
		return out, nil
	}}
	for _, tc := range []struct {
		floor    float64
		restates bool
	}{{0.93, true}, {-1, false}} {
		res, err := RunSupersede(context.Background(), pairs, SupersedeConfig{Embedder: same, RestatementSimilarity: tc.floor})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Pairs
		if got[0].Cosine < 0.999 || !got[0].Supersedes || got[0].Restates {
			t.Errorf("floor %v: negation: %+v", tc.floor, got[0])
		}
		if got[1].Restates != tc.restates || got[1].Supersedes {
			t.Errorf("floor %v: restatement: %+v", tc.floor, got[1])
		}
		if got[2].Supersedes || got[2].Restates {
			t.Errorf("floor %v: addition: %+v", tc.floor, got[2])
		}
	}
	// Orthogonal vectors: cosine 0, below both rules' floors.
	apart := &mock.Embedder{EmbedFunc: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{float32(i % 2), float32(1 - i%2)}
		}
		return out, nil
	}}
	res, err := RunSupersede(context.Background(), pairs, SupersedeConfig{Embedder: apart, RestatementSimilarity: 0.93})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Pairs {
		if p.Supersedes || p.Restates || p.Cosine != 0 {
			t.Errorf("orthogonal pair %s: %+v", p.ID, p)
		}
	}
	failing := &mock.Embedder{EmbedFunc: func(context.Context, []string) ([][]float32, error) { return nil, errors.New("down") }}
	if _, err := RunSupersede(context.Background(), pairs, SupersedeConfig{Embedder: failing}); err == nil || !strings.Contains(err.Error(), "down") {
		t.Errorf("embedder error: %v", err)
	}
}

// Precision and recall count what a rule said against one label, in one
// half; the table prints them with "-" for a rule that said yes to
// nothing.
func TestSupersedeScore(t *testing.T) {
	r := SupersedeResults{Pairs: []PairResult{
		{SupersedePair: SupersedePair{Label: LabelSupersede, Round: 2}, HeldOut: true, Supersedes: true},
		{SupersedePair: SupersedePair{Label: LabelSupersede, Round: 2}, HeldOut: true},
		{SupersedePair: SupersedePair{Label: LabelCompatible, Round: 1}, HeldOut: true, Supersedes: true},
		{SupersedePair: SupersedePair{Label: LabelRestate, Round: 1}, HeldOut: false, Supersedes: true},
	}}
	for _, tc := range []struct {
		half SupersedeHalf
		want PRScore
	}{
		{SupersedeHalves[0], PRScore{TP: 1, FN: 1, N: 2}},
		{SupersedeHalves[1], PRScore{FP: 1, N: 1}},
		{SupersedeHalves[2], PRScore{TP: 1, FP: 1, FN: 1, N: 3}},
		{SupersedeHalves[3], PRScore{FP: 1, N: 1}},
	} {
		if got := r.Score(tc.half, LabelSupersede, saidSupersedes); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.half.Name, got, tc.want)
		}
	}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| supersedes | held-out, round 2 | 2 | 1.000 | 0.500 | 1 | 0 | 1 |",
		"| restates | held-out | 3 | - | - | 0 | 0 | 0 |",
		"| held-out, round 1 | supersedes | 0 / 0 | 0 / 0 | 1 / 1 | 0 / 0 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// The figures docs/EVALUATION.md gives are what the rules do now with
// the offline default's vectors: a change to either rule or to the pairs
// fails here until the table there is run again.
func TestSupersedeFiguresInEvaluationDoc(t *testing.T) {
	pairs, err := SupersedePairs()
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunSupersede(context.Background(), pairs, SupersedeConfig{
		Embedder:              productOptions(t).Embedder,
		RestatementSimilarity: memory.DefaultRestatementSimilarity,
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/EVALUATION.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if !strings.HasPrefix(line, "| supersedes |") && !strings.HasPrefix(line, "| restates") {
			continue
		}
		rows++
		if !strings.Contains(string(doc), line+"\n") {
			t.Errorf("docs/EVALUATION.md lacks the row %q (run amem-eval supersede and copy its first table)", line)
		}
	}
	if rows != 12 {
		t.Errorf("%d rows, want 12:\n%s", rows, b.String())
	}
}
