package conversation

import (
	"context"
	"math"

	"github.com/amem-dev/amem/lexindex"
	"github.com/amem-dev/amem/search"
)

// Source is what the profile reads of a namespace beyond the two
// rankings, from the same state of its indexes and with the same filter.
type Source interface {
	// ReadText runs fn with the namespace's full-text index, read-locked:
	// the notes' order and times (the replies, the day spread), their
	// keywords (feedback) and marks (the ranker's features).
	ReadText(fn func(ix *lexindex.Index))
	// Vectors returns the k notes nearest q by cosine (dense feedback).
	Vectors(q []float32, k int) ([]search.Hit, error)
	// Embeddings returns the notes' embeddings, nil for one gone (dense
	// feedback).
	Embeddings(ctx context.Context, ids []string) ([][]float32, error)
}

// Weights weigh the profile's rankings in its fusion: the vector
// ranking's weight is 1, Lexical the full-text ranking's; Reply, Feedback
// and Dense the extra rankings' (rankings.go), off when not above 0.
// DaySpread, in [0, 1), spreads the hits over the days they were said
// instead of the ranker: each hit's fused score is multiplied by
// 1 - DaySpread for every better hit from the same day; 0 is off.
type Weights struct {
	Lexical                float64
	Reply, Feedback, Dense float64
	DaySpread              float64
}

func (w Weights) extra() bool { return w.Reply > 0 || w.Feedback > 0 || w.Dense > 0 }

// Orderer orders a search's candidates in the conversation profile.
type Orderer struct {
	Source  Source
	Weights Weights
	// Ranker re-orders the fusion's first Window candidates; nil keeps
	// the fusion's order.
	Ranker *Ranker
	// Query is the search's text; Allow, if not nil, must pass a note the
	// extra rankings bring (the search's filter).
	Query string
	Allow func(id string) bool
}

// Order fuses vec and lex, the rankings read to search.Depth, with the
// extra rankings derived from their fusion, and then either re-orders
// the fusion's first Window candidates by the ranker, the rest following
// in fused order, or spreads the candidates over days, as the weights
// say. It returns every candidate, ordered: a search.Order.
func (o Orderer) Order(ctx context.Context, vec, lex []search.Hit) ([]string, error) {
	in, fused, err := o.fuse(ctx, vec, lex)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Weights.DaySpread > 0:
		return search.IDs(spreadOverDays(o.Source, fused, o.Weights.DaySpread)), nil
	case o.Ranker != nil:
		return append(search.IDs(applyRanker(o.Source, o.Ranker, in)), search.IDs(fused[len(in.window):])...), nil
	}
	return search.IDs(fused), nil
}

// Candidates returns the ranker's window for vec and lex, in fusion
// order, with each candidate's features: what a ranker is trained on.
func (o Orderer) Candidates(ctx context.Context, vec, lex []search.Hit) ([]RankCandidate, error) {
	in, _, err := o.fuse(ctx, vec, lex)
	if err != nil {
		return nil, err
	}
	return rankCandidates(o.Source, in), nil
}

// fuse is the weighted fusion of every ranking, whole, and the ranker's
// input: its window, the fusion's first Window candidates.
func (o Orderer) fuse(ctx context.Context, vec, lex []search.Hit) (rankInput, []search.Hit, error) {
	weights := []float64{1, o.Weights.Lexical}
	rankings := [][]search.Hit{vec, lex}
	names := []string{"vector", "lexical"}
	if o.Weights.extra() {
		more, moreW, moreN, err := extraRankings(ctx, o.Source, fuse(search.Depth, weights, rankings...), search.Depth, o.Weights, o.Allow)
		if err != nil {
			return rankInput{}, nil, err
		}
		rankings, weights, names = append(rankings, more...), append(weights, moreW...), append(names, moreN...)
	}
	fused := fuse(math.MaxInt, weights, rankings...)
	return rankInput{query: o.Query, names: names, rankings: rankings, window: fused[:min(Window, len(fused))]}, fused, nil
}
