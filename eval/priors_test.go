package eval

import (
	"slices"
	"testing"
)

// hits makes a default order of notes named by ids, relevance falling by
// 0.1 a place, each note its own unit, with the given ages in days.
func priorHits(ids []string, ages ...float64) []priorHit {
	out := make([]priorHit, len(ids))
	for i, id := range ids {
		out[i] = priorHit{id: id, base: 0.9 - 0.1*float64(i), units: []string{id}}
		if i < len(ages) {
			out[i].age = ages[i]
		}
	}
	return out
}

func firstUnits(us [][]string) []string {
	var out []string
	for _, u := range us {
		out = append(out, u[0])
	}
	return out
}

func TestReorderKeepsOrderWithoutWeight(t *testing.T) {
	q := priorQuery{hits: priorHits([]string{"a", "b", "c"}, 300, 0, 100)}
	if got := firstUnits(reorder(q, 0, recencyPrior(30))); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("w 0: %v", got)
	}
	// a is 300 days old and b new: a prior of 0.2 lifts b (0.8+0.2) over a
	// (0.9+0.2·e^-10).
	if got := firstUnits(reorder(q, 0.2, recencyPrior(30))); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Fatalf("w 0.2: %v", got)
	}
}

func TestFrequencyPriorLeavesOwnSearchOut(t *testing.T) {
	qs := []priorQuery{
		{set: "s", space: "x", hits: priorHits([]string{"a", "b"})},
		{set: "s", space: "x", hits: priorHits([]string{"a", "c"})},
		{set: "s", space: "x", heldOut: true, hits: priorHits([]string{"c", "a"})},
	}
	f := frequencyPrior(qs, 1)
	// Tuning searches put a first twice. For the held-out query a is at its
	// most (1); for a tuning query, its own search is left out: once of a
	// most of 2.
	if got := f(qs[2], qs[2].hits[1]); got != 1 {
		t.Fatalf("held out, a: %v, want 1", got)
	}
	if got := f(qs[0], qs[0].hits[0]); got <= 0 || got >= 1 {
		t.Fatalf("tuning, a without its own search: %v, want in (0, 1)", got)
	}
	if got := f(qs[2], qs[2].hits[0]); got != 0 {
		t.Fatalf("held out, c never recalled by a tuning query: %v", got)
	}
}

func TestAnalysePriorsChoosesOnTuningOnly(t *testing.T) {
	// Every tuning query's answer is the newest note, second by relevance;
	// the held-out query's answer is first and old.
	var qs []priorQuery
	for range 4 {
		qs = append(qs, priorQuery{set: "timed", space: "x", relevant: []string{"new"}, hits: priorHits([]string{"old", "new", "other"}, 400, 0, 200)})
	}
	qs = append(qs, priorQuery{set: "timed", space: "x", heldOut: true, relevant: []string{"old"}, hits: priorHits([]string{"old", "new"}, 400, 0)})
	res := AnalysePriors(qs, 1)
	if res.RecencyWeight == 0 {
		t.Fatalf("no recency weight chosen though it lifts every tuning answer: %+v", res.Grid)
	}
	for _, r := range res.Rows {
		if r.Set == "timed" && r.Half == HalfHeldOut && r.Kind == "all" && r.Prior[:7] == "recency" {
			if r.BaseRecall != 1 || r.Recall != 0 {
				t.Fatalf("held-out row %+v: the prior should cost the old answer its place", r)
			}
			return
		}
	}
	t.Fatalf("no held-out recency row in %+v", res.Rows)
}

func TestAnalysePriorsChoosesNoneWhenNoneHelps(t *testing.T) {
	// The answers are first already, and old: any recency weight can only
	// push them down, and frequency has nothing to add.
	var qs []priorQuery
	for range 4 {
		qs = append(qs, priorQuery{set: "timed", space: "x", relevant: []string{"old"}, hits: priorHits([]string{"old", "new"}, 400, 0)})
	}
	res := AnalysePriors(qs, 1)
	if res.RecencyWeight != 0 || res.FrequencyWeight != 0 {
		t.Fatalf("chose recency %v, frequency %v where neither helps: %v", res.RecencyWeight, res.FrequencyWeight, res.Grid)
	}
}
