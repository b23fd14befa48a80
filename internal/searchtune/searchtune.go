// Package searchtune lets the evaluation try the conversation profile's
// tuned constants search by search, a hook outside amem's public API:
// only this module can import an internal package. A search finds them
// in its context; a program sets them in memory.Options.
package searchtune

import (
	"context"

	"github.com/amem-dev/amem/search/conversation"
)

// Tuning overrides the Memory's options for one search. A zero field
// means the options' value; a negative weight or spread turns its
// ranking off (not LexicalWeight, which must be positive).
type Tuning struct {
	LexicalWeight       float64
	ReplyWeight         float64
	FeedbackWeight      float64
	DenseFeedbackWeight float64
	DaySpread           float64
	// Ranker replaces Options.Search.Ranker; nil keeps it.
	Ranker *conversation.Ranker
}

type key struct{}

// With returns ctx carrying t for the searches run with it.
func With(ctx context.Context, t Tuning) context.Context {
	return context.WithValue(ctx, key{}, t)
}

// From returns the tuning ctx carries, if any.
func From(ctx context.Context) (Tuning, bool) {
	t, ok := ctx.Value(key{}).(Tuning)
	return t, ok
}
