package memory

import (
	"context"

	"github.com/amem-dev/amem"

	"github.com/amem-dev/amem/search/conversation"
)

// Replies is the reply ranking of hits, IDs in rank order, for the
// external tests.
func (m *Memory) Replies(ctx context.Context, ns string, hits []string) ([]string, error) {
	first := make([]amem.Scored, len(hits))
	for i, id := range hits {
		first[i] = amem.Scored{ID: id, Score: float64(len(hits) - i)}
	}
	s, err := m.k.Fresh(ctx, ns)
	if err != nil {
		return nil, err
	}
	out := conversation.Replies(&searchView{m: m, ctx: ctx, s: s}, first, nil)
	ids := make([]string, len(out))
	for i, s := range out {
		ids[i] = s.ID
	}
	return ids, err
}

// RankerWindow is the conversation profile's ranker's window, for the
// external tests.
const RankerWindow = conversation.Window
