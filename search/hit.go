package search

// Hit is a note ID with a score, higher is better.
type Hit struct {
	ID    string
	Score float64
}

// Mode chooses how direct hits are found.
type Mode string

const (
	// Vector ranks notes by cosine of their embedding to the query's.
	Vector Mode = "vector"
	// Lexical ranks notes by BM25 over content, context, keywords and tags.
	Lexical Mode = "lexical"
	// Hybrid reads both rankings and orders their notes as the
	// namespace's profile says: by relevance in the general profile; by
	// the conversation profile's Order there.
	Hybrid Mode = "hybrid"
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
