package uselite

import (
	"slices"
	"testing"
)

// scheduleOf is a schedule for texts of the given token counts.
func scheduleOf(lengths ...int) *schedule {
	s := &schedule{}
	for i, n := range lengths {
		if n == 0 {
			s.empty = append(s.empty, i)
		}
		start := int32(len(s.ids))
		for range n {
			s.ids = append(s.ids, 1)
		}
		s.spans = append(s.spans, [2]int32{start, int32(len(s.ids))})
	}
	return s
}

func runsOf(s *schedule) [][]int {
	var out [][]int
	for r := range s.numRuns() {
		out = append(out, slices.Clone(s.run(r)))
	}
	return out
}

func TestSchedulePlan(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lengths []int
		workers int
		want    [][]int
	}{
		{"one text", []int{18}, 2, [][]int{{0}}},
		{"only empty texts", []int{0, 0}, 2, nil},
		{"empty texts take no run", []int{0, 5, 0}, 1, [][]int{{1}}},
		// An Add's candidate phrases: one pass, not one each.
		{"short texts share a pass", []int{3, 2, 1, 3, 1}, 2, [][]int{{0, 3, 1, 2, 4}}},
		// A neighbour and the note, re-embedded: one core each.
		{"two long texts, two cores", []int{77, 67}, 2, [][]int{{0}, {1}}},
		{"two long texts, one core", []int{77, 67}, 1, [][]int{{0, 1}}},
		// A 65-token text padded to 130 rows for a one-token phrase
		// would nearly double its pass.
		{"no long padding", []int{65, 1}, 1, [][]int{{0}, {1}}},
		{"longest first", []int{2, 9, 5}, 1, [][]int{{1, 2, 0}}},
		{"rows bounded", []int{100, 100, 100, 100, 100, 100}, 1, [][]int{{0, 1, 2, 3, 4}, {5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scheduleOf(tc.lengths...)
			s.plan(tc.workers)
			if got := runsOf(s); !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("runs %v, want %v", got, tc.want)
			}
		})
	}
}

// Every text with tokens is in exactly one run, no run exceeds the row
// bound, and a run's padding stays within its limit.
func TestSchedulePlanInvariants(t *testing.T) {
	for seed := range 200 {
		n := 1 + seed%40
		lengths := make([]int, n)
		for i := range lengths {
			lengths[i] = (seed*7 + i*i*13) % 129
		}
		for _, workers := range []int{1, 2, 16} {
			s := scheduleOf(lengths...)
			s.plan(workers)
			seen := make([]int, n)
			for r := range s.numRuns() {
				run := s.run(r)
				longest, real := 0, 0
				for _, i := range run {
					seen[i]++
					longest = max(longest, lengths[i])
					real += lengths[i]
				}
				padded := len(run) * longest
				if len(run) > 1 && (padded > runMaxRows || float64(padded) > runPadRatio*float64(real)+runPadSlack) {
					t.Fatalf("lengths %v, %d workers: run %v pads %d rows for %d tokens", lengths, workers, run, padded, real)
				}
			}
			for i, c := range seen {
				if want := min(lengths[i], 1); c != want {
					t.Fatalf("lengths %v, %d workers: text %d in %d runs, want %d", lengths, workers, i, c, want)
				}
			}
		}
	}
}
