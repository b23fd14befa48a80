package locomo

import "testing"

func TestRecallAtHitAt(t *testing.T) {
	ranked := []string{"D1:1", "D1:2", "D2:5", "D1:2", "D3:1"}
	cases := []struct {
		name      string
		retrieved []string
		evidence  []string
		k         int
		recall    float64
		hit       float64
	}{
		{"none in first 1", ranked, []string{"D1:2", "D3:1"}, 1, 0, 0},
		{"one of two in first 2", ranked, []string{"D1:2", "D3:1"}, 2, 0.5, 1},
		// The duplicate D1:2 at position 4 takes a slot and counts once.
		{"duplicate occupies a slot", ranked, []string{"D1:2", "D3:1"}, 4, 0.5, 1},
		{"all by 5", ranked, []string{"D1:2", "D3:1"}, 5, 1, 1},
		{"k beyond length", ranked, []string{"D1:2", "D9:9"}, 100, 0.5, 1},
		{"duplicate evidence counts once", ranked, []string{"D1:1", "D1:1"}, 1, 1, 1},
		{"no evidence", ranked, nil, 5, 0, 0},
		{"nothing retrieved", nil, []string{"D1:1"}, 5, 0, 0},
		{"k zero", ranked, []string{"D1:1"}, 0, 0, 0},
		{"k negative", ranked, []string{"D1:1"}, -3, 0, 0},
		{"all duplicates retrieved", []string{"D1:1", "D1:1", "D1:1"}, []string{"D1:1", "D2:2"}, 3, 0.5, 1},
	}
	for _, c := range cases {
		if got := RecallAt(c.retrieved, c.evidence, c.k); !near(got, c.recall) {
			t.Errorf("%s: RecallAt = %v, want %v", c.name, got, c.recall)
		}
		if got := HitAt(c.retrieved, c.evidence, c.k); got != c.hit {
			t.Errorf("%s: HitAt = %v, want %v", c.name, got, c.hit)
		}
	}
}

func TestReciprocalRank(t *testing.T) {
	ranked := []string{"D1:1", "D1:2", "D2:5", "D1:2", "D3:1"}
	cases := []struct {
		evidence []string
		want     float64
	}{
		{[]string{"D1:1"}, 1},
		{[]string{"D3:1", "D2:5"}, 1.0 / 3}, // the first evidence turn in the list, whichever the question names first
		{[]string{"D1:2"}, 0.5},             // its later duplicate does not count
		{[]string{"D9:9"}, 0},
		{nil, 0},
	}
	for _, c := range cases {
		if got := ReciprocalRank(ranked, c.evidence); !near(got, c.want) {
			t.Errorf("ReciprocalRank(%v) = %v, want %v", c.evidence, got, c.want)
		}
	}
}
