package search

import "github.com/amem-dev/amem"

// Hit is a note ID with a score, higher is better (amem.Scored).
type Hit = amem.Scored

// Mode chooses how direct hits are found (amem.SearchMode).
type Mode = amem.SearchMode

const (
	Vector  = amem.SearchVector
	Lexical = amem.SearchLexical
	Hybrid  = amem.SearchHybrid
)

// Query is a search as the pipeline reads it, checked by the caller.
type Query struct {
	Text string
	K    int
	Mode Mode
	// Profile is the profile asked for: ProfileAuto picks one by what
	// the namespace holds.
	Profile Profile
	// MinScore drops the hits whose relevance is below it.
	MinScore float64
}

// IDs are the hits' IDs, in order.
func IDs(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

// CompareScores orders two scores best first.
func CompareScores(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
