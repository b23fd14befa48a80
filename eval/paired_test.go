package eval

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func pairedRun(recalls ...float64) *SuiteResults {
	r := &SuiteResults{K: 10}
	for i, x := range recalls {
		r.Queries = append(r.Queries, QueryScore{Set: "s", Mode: "default", Half: HalfHeldOut, Key: fmt.Sprint(i), Recall: x})
	}
	return r
}

func TestPaired(t *testing.T) {
	// Every query gains: the interval excludes no change.
	before := pairedRun(0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5)
	after := pairedRun(1, 1, 1, 1, 1, 1, 1, 1)
	rows, err := Paired(before, after)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.N != 8 || r.Better != 8 || r.Worse != 0 || math.Abs(r.Diff-0.75) > 1e-9 || r.Verdict() != "higher" {
		t.Errorf("all better: %+v, %s", r, r.Verdict())
	}
	if !(r.Low > 0 && r.Low <= r.Diff && r.Diff <= r.High) {
		t.Errorf("interval (%v, %v) around %v", r.Low, r.High, r.Diff)
	}
	// Two up, two down, the rest the same: nothing measured, though the
	// means differ; and the same again reads the same (seeded).
	before = pairedRun(1, 1, 0, 0, 1, 1, 0.5, 0.5, 1, 0)
	after = pairedRun(0, 0.5, 1, 1, 1, 1, 0.5, 0.5, 1, 0)
	rows, err = Paired(before, after)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Paired(before, after)
	r = rows[0]
	if r.Better != 2 || r.Worse != 2 || math.Abs(r.Diff-0.05) > 1e-9 || r.Verdict() != "no difference measured" || again[0] != r {
		t.Errorf("mixed: %+v, %s; again %+v", r, r.Verdict(), again[0])
	}
	// Queries one run lacks are left out, not counted as zero.
	after.Queries = after.Queries[:4]
	rows, _ = Paired(before, after)
	if rows[0].N != 4 {
		t.Errorf("n = %d, want the 4 queries both hold", rows[0].N)
	}
	var b bytes.Buffer
	WritePairedTable(&b, rows, 10)
	if !strings.Contains(b.String(), "| s | held-out | default | 4 | 2 | 2 |") {
		t.Errorf("table:\n%s", b.String())
	}
}

func TestPairedRefuses(t *testing.T) {
	if _, err := Paired(&SuiteResults{K: 10}, pairedRun(1)); err == nil || !strings.Contains(err.Error(), "no per-query figures") {
		t.Errorf("no queries: %v", err)
	}
	other := pairedRun(1)
	other.K = 5
	if _, err := Paired(pairedRun(1), other); err == nil {
		t.Error("different K compared")
	}
	disjoint := pairedRun(1)
	disjoint.Queries[0].Key = "other"
	if _, err := Paired(pairedRun(1), disjoint); err == nil {
		t.Error("disjoint runs compared")
	}
}
