package offline

import (
	"slices"
	"testing"
)

// TestChooseTags checks the confidence rule on made-up scores: the lift,
// the gap between the best two, and the margin for a second tag.
func TestChooseTags(t *testing.T) {
	ranked := func(sims ...float64) []scoredTag {
		names := []string{"a", "b", "c", "d"}
		out := make([]scoredTag, len(sims))
		for i, s := range sims {
			out[i] = scoredTag{tag: names[i], sim: s, lift: s - 0.3}
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		ranked []scoredTag
		minGap float64
		want   []string
	}{
		{"clear best", ranked(0.6, 0.5, 0.4), 0.02, []string{"a"}},
		{"near tie gets nothing", ranked(0.6, 0.59, 0.4), 0.02, nil},
		{"a tie is no gap", ranked(0.6, 0.6, 0.4), 0.001, nil},
		{"a negative gap turns the test off", ranked(0.6, 0.59, 0.4), -1, []string{"a", "b"}},
		{"second within the margin", ranked(0.6, 0.57, 0.4), 0.02, []string{"a", "b"}},
		{"lift too low", ranked(0.45, 0.3, 0.2), 0.02, nil},
		{"one tag only", ranked(0.6), 0.02, []string{"a"}},
		{"no tags", nil, 0.02, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := chooseTags(tc.ranked, 3, 0.2, 0.04, tc.minGap); !slices.Equal(got, tc.want) {
				t.Errorf("chooseTags = %v, want %v", got, tc.want)
			}
		})
	}
}
