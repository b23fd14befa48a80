package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/locomo"
)

// q10 is a question of a conversation whose recall@10 is r.
func q10(conv string, cat int, r float64) QuestionResult {
	return QuestionResult{SampleID: conv, Category: cat, Evidence: []string{"D1:1"}, Recall: map[string]float64{"10": r}, Hit: map[string]float64{"10": r}}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The best point on the held-out conversation is not the best on the
// others: a fold must pick the latter, however good the former looks on
// the conversation it is scored on.
func TestFoldsChooseWithoutTheHeldOutConversation(t *testing.T) {
	shipped := Setting{"lexical-weight": "1"}
	settings := []Setting{shipped, {"lexical-weight": "2"}}
	results := [][]QuestionResult{
		{q10("a", 1, 1), q10("b", 4, 0.5), q10("c", 2, 0.5), q10("a", 5, 0)},
		{q10("a", 1, 0), q10("b", 4, 1), q10("c", 2, 1), q10("a", 5, 1)},
	}
	mc := folds(ModeAMem, settings, results, results[0], []string{"a", "b", "c"}, shipped, 10)
	want := map[string]struct {
		chosen      string
		train, held float64
	}{
		// On b and c, weight 2 scores 1 against 0.5; on a it scores 0.
		"a": {"2", 1, 0},
		// On a and c (one question each), weight 1 scores 0.75 against
		// 0.5; category 5 does not count.
		"b": {"1", 0.75, 0.5},
		"c": {"1", 0.75, 0.5},
	}
	if len(mc.Folds) != 3 {
		t.Fatalf("%d folds", len(mc.Folds))
	}
	for _, f := range mc.Folds {
		w := want[f.HeldOut]
		got := f.Scores.Means["1-4"]["recall@10"]
		if f.Chosen["lexical-weight"] != w.chosen || !near(f.TrainCriterion, w.train) || !near(got, w.held) {
			t.Errorf("fold %s: chose %v (%.3f on the others), held-out recall@10 %.3f; want %s (%.3f), %.3f", f.HeldOut, f.Chosen, f.TrainCriterion, got, w.chosen, w.train, w.held)
		}
		if n := f.Scores.Counts["1-4"]; n != 1 {
			t.Errorf("fold %s scored %d category 1-4 questions, want its own 1", f.HeldOut, n)
		}
	}
	if got := mc.Mean["1-4"]["recall@10"]; !near(got, 1.0/3) {
		t.Errorf("mean over folds %v, want 1/3", got)
	}
	// Adversarial questions are scored, under the fold's choice, though
	// they choose nothing.
	if got := mc.Mean["5"]["recall@10"]; !near(got, 1) {
		t.Errorf("category 5 over folds %v, want 1 (fold a chose weight 2)", got)
	}
	if got := mc.InSample.Means["1-4"]["recall@10"]; !near(got, 2.0/3) {
		t.Errorf("in-sample %v, want 2/3", got)
	}
	// Both points score 2/3 on everything: the tie goes to the shipped one.
	if mc.Best.Setting["lexical-weight"] != "1" {
		t.Errorf("best in sample %v, want the shipped point on a tie", mc.Best.Setting)
	}
	if got := mc.Pooled.Means["1-4"]["recall@10"]; !near(got, 1.0/3) || mc.Pooled.Counts["1-4"] != 3 {
		t.Errorf("pooled %v over %d", got, mc.Pooled.Counts["1-4"])
	}
}

func TestChooseBreaksTiesTowardsTheShippedValues(t *testing.T) {
	settings := []Setting{{"w": "1"}, {"w": "4"}, {"w": "6"}}
	same := []QuestionResult{q10("a", 1, 0.5)}
	results := [][]QuestionResult{same, same, same}
	all := func(string) bool { return true }
	if i, _ := choose(settings, results, Setting{"w": "4"}, 10, all); i != 1 {
		t.Fatalf("chose %d, want the shipped point 1", i)
	}
	if i, _ := choose(settings, results, Setting{"w": "9"}, 10, all); i != 0 {
		t.Fatalf("chose %d, want the first point when the shipped one is not in the grid", i)
	}
	// Two constants; w helps, x changes nothing: the tie between the
	// points with w=2 goes to the one that leaves x as shipped, though
	// it comes later.
	settings = []Setting{{"w": "1", "x": "a"}, {"w": "2", "x": "a"}, {"w": "2", "x": "b"}, {"w": "1", "x": "b"}}
	better := []QuestionResult{q10("a", 1, 0.9)}
	results = [][]QuestionResult{same, better, better, same}
	if i, _ := choose(settings, results, Setting{"w": "1", "x": "b"}, 10, all); i != 2 {
		t.Fatalf("chose %d, want 2 (w=2 x=b: one constant moved, not two)", i)
	}
}

// recall@5 and MRR on lists worked out by hand.
func TestRecallAt5AndMRR(t *testing.T) {
	qs := []QuestionResult{
		// First evidence at rank 3; one of two pieces in the first 5.
		{Category: 1, Evidence: []string{"D1:3", "D1:7"}, Retrieved: []string{"D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D1:6", "D1:7"}},
		// At rank 1.
		{Category: 4, Evidence: []string{"D2:1"}, Retrieved: []string{"D2:1", "D2:2"}},
		// Not retrieved at all.
		{Category: 4, Evidence: []string{"D3:9"}, Retrieved: []string{"D3:1"}},
		// Adversarial, at rank 2: outside the 1-4 pool.
		{Category: 5, Evidence: []string{"D4:2"}, Retrieved: []string{"D4:1", "D4:2"}},
		// No evidence: no recall, no MRR.
		{Category: 5, Retrieved: []string{"D4:1"}},
	}
	for i := range qs {
		qs[i].Evidence = nonNil(qs[i].Evidence)
		score(&qs[i], 10)
	}
	if qs[0].RR == nil || !near(*qs[0].RR, 1.0/3) || qs[4].RR != nil {
		t.Fatalf("reciprocal ranks %v, %v", qs[0].RR, qs[4].RR)
	}
	s := summarise(qs, cutoffsUpTo(10))
	o := s.Means["1-4"]
	if !near(o["recall@5"], (0.5+1+0)/3) || !near(o["recall@10"], (1+1+0)/3.0) || !near(o["mrr"], (1.0/3+1+0)/3) {
		t.Fatalf("1-4: recall@5 %v, recall@10 %v, MRR %v", o["recall@5"], o["recall@10"], o["mrr"])
	}
	if !near(s.Means["5"]["mrr"], 0.5) || s.Counts["5"] != 1 || s.Counts["1-4"] != 3 {
		t.Fatalf("category 5 %v, counts %v", s.Means["5"], s.Counts)
	}
}

func TestParseGrid(t *testing.T) {
	g, err := ParseGrid([]string{"lexical-weight=1, 2.50,4", "link-order=after,interleaved", "link-min-similarity=0.3,0.35"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g[0].Values, []string{"1", "2.5", "4"}) || g[1].Ingest || !g[2].Ingest {
		t.Fatalf("grid %+v", g)
	}
	if n := len(points(g)); n != 12 {
		t.Fatalf("%d points, want 3*2*2", n)
	}
	for spec, want := range map[string]string{
		"fusion=1,2":              "unknown constant \"fusion\"; use one of lexical-weight",
		"lexical-weight":          "no values",
		"lexical-weight=":         "no values",
		"lexical-weight=1,-2":     "\"-2\" is not a positive number",
		"lexical-weight=1,x":      "\"x\" is not a positive number",
		"lexical-weight=2,2.0":    "2 is listed twice",
		"link-order=after,before": "use after or interleaved",
		"links-per-hit=1.5":       "not a positive whole number",
		"reply-weight=0,-1":       "\"-1\" is not a number 0 or above",
		"feedback-weight=NaN":     "\"NaN\" is not a number 0 or above",
		"day-spread=0,1":          "use a number from 0 (off) to below 1",
	} {
		if _, err := ParseGrid([]string{spec}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
	g, err = ParseGrid([]string{"reply-weight=0,1", "feedback-weight=0, 2", "dense-feedback-weight=0,1", "day-spread=0,0.2"})
	if err != nil || g[0].Ingest || !reflect.DeepEqual(g[1].Values, []string{"0", "2"}) || len(points(g)) != 16 {
		t.Fatalf("the extra rankings' grid %+v: %v", g, err)
	}
	// A grid's 0 turns a ranking off, whatever the Memory's default.
	for _, p := range g {
		tn, _ := findTunable(p.Name)
		var req request
		tn.search(&req, "0")
		if w := req.tune; w.ReplyWeight+w.FeedbackWeight+w.DenseFeedbackWeight+w.DaySpread != -1 {
			t.Errorf("%s=0 sets %+v, want -1 (off) on its field", p.Name, w)
		}
	}
	if _, err := ParseGrid([]string{"link-order=after", "link-order=interleaved"}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("repeated constant: %v", err)
	}
}

// two is the tiny conversation and a copy of it under another sample ID.
func two(t *testing.T) []locomo.Conversation {
	convs := tiny(t)
	c := convs[0]
	c.SampleID = "conv-y"
	return append(convs, c)
}

func TestRunCrossValidates(t *testing.T) {
	grid, err := ParseGrid([]string{"lexical-weight=1,3", "link-min-similarity=0.3,0.35"})
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	res, err := Run(context.Background(), two(t), Config{
		Modes: []Mode{ModeBM25, ModeAMem}, K: 2, Embedder: lexical.New(nil), WorkDir: t.TempDir(), CV: grid, Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	cv := res.CV
	// bm25 has nothing the grid acts on; amem has 4 points, 2 folds.
	if cv == nil || len(cv.Modes) != 1 || cv.Modes[0].Mode != ModeAMem || cv.Modes[0].Points != 4 || len(cv.Modes[0].Folds) != 2 {
		t.Fatalf("cv %+v", cv)
	}
	if cv.Grid[0].Shipped != "1" || cv.Grid[1].Shipped != "0.35" || !cv.Grid[1].Ingest {
		t.Fatalf("grid %+v", cv.Grid)
	}
	// The run's own ingests and one more for link-min-similarity 0.3.
	var names []string
	for _, in := range res.Ingest {
		names = append(names, in.Store)
	}
	if !reflect.DeepEqual(names, []string{"raw", "enriched", "enriched-link-min-similarity-0.3"}) {
		t.Fatalf("ingests %v", names)
	}
	// The grid searches the shipped point as the run did: same figures.
	mc := cv.Modes[0]
	if got, want := mc.InSample.Means["1-4"]["recall@2"], res.Summary[ModeAMem]["1-4"]["recall@2"]; got != want {
		t.Fatalf("in-sample %v, summary %v", got, want)
	}
	var table bytes.Buffer
	if err := res.WriteTable(&table, 2); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"amem, leave one conversation out (2 folds)", "**cross-validated, mean over folds**", "| conv-y | 2 | lexical-weight=", "| amem | 1 multi-hop | 2 |", "| - |"} {
		if !strings.Contains(table.String(), want) {
			t.Fatalf("table lacks %q:\n%s", want, table.String())
		}
	}
	var buf bytes.Buffer
	if err := res.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.CV, res.CV) || back.Questions[0].RR == nil || *back.Questions[0].RR != *res.Questions[0].RR {
		t.Fatalf("the cross-validation does not round-trip:\n%+v\n%+v", back.CV, res.CV)
	}
	if !strings.Contains(progress.String(), "cv amem: grid point 4/4") {
		t.Fatalf("progress: %q", progress.String())
	}
}

func TestRunCrossValidationNeedsTwoConversationsAndTheOfflineCurator(t *testing.T) {
	grid, _ := ParseGrid([]string{"link-min-similarity=0.3,0.35"})
	emb := lexical.New(nil)
	if _, err := Run(context.Background(), tiny(t), Config{Embedder: emb, WorkDir: t.TempDir(), CV: grid}); err == nil || !strings.Contains(err.Error(), "needs at least 2") {
		t.Fatalf("one conversation: %v", err)
	}
	if _, err := Run(context.Background(), two(t), Config{Embedder: emb, WorkDir: t.TempDir(), CV: grid, Curator: &nsRecorder{}, CuratorName: "llm (x)"}); err == nil || !strings.Contains(err.Error(), "offline curator's") {
		t.Fatalf("another curator: %v", err)
	}
}

// A results file written before recall@5's neighbours MRR and the
// cross-validation existed still loads, and summarises with MRR.
func TestOldResultsFileLoads(t *testing.T) {
	old := `{"config":{"modes":["amem"],"k":10,"embedder":"use-lite","curator":"offline","search":"hybrid","lexical_weight":4,"conversations":["conv-26"],"questions":1,"turns":3,"categories":"official","date":"2026-12-02T10:00:00Z"},
"questions":[{"mode":"amem","sample_id":"conv-26","index":0,"category":1,"question":"q?","answer":"a","evidence":["D1:2"],"retrieved":["D1:1","D1:2"],"kinds":["direct","direct"],"context_tokens":20,"recall":{"1":0,"5":1,"10":1,"context":1},"hit":{"1":0,"5":1,"10":1,"context":1}}],
"summary":{"amem":{"1":{"recall@10":1}}},"counts":{"amem":{"1":1}},"ingest":[],"search":[]}`
	var r Results
	if err := json.Unmarshal([]byte(old), &r); err != nil {
		t.Fatal(err)
	}
	if r.CV != nil || r.Questions[0].RR != nil {
		t.Fatalf("new fields appeared: %+v", r)
	}
	r.summarise(r.Config.Modes)
	if got := r.Summary[ModeAMem]["1"]["mrr"]; got != 0.5 {
		t.Fatalf("MRR from an old file %v, want 0.5", got)
	}
}
