package memory

import (
	"context"

	"github.com/amem-dev/amem"
)

// host is the Memory as package enrich's engine sees it (enrich.Host):
// its store behind the closed check, its embedder and its kernel. A type
// of its own so that these stay out of Memory's methods.
type host struct{ m *Memory }

func (h host) View(ctx context.Context, fn func(amem.Tx) error) error   { return h.m.view(ctx, fn) }
func (h host) Update(ctx context.Context, fn func(amem.Tx) error) error { return h.m.update(ctx, fn) }

func (h host) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return h.m.embed(ctx, texts)
}

func (h host) Advance(ctx context.Context, ns string) { h.m.k.Advance(ctx, ns) }

// Nearest returns the note's k nearest notes in its namespace, itself
// excluded, as the curator will see them.
func (h host) Nearest(ctx context.Context, n amem.Note, k int) ([]amem.Candidate, error) {
	m := h.m
	s, err := m.k.Fresh(ctx, n.Namespace)
	if err != nil {
		return nil, err
	}
	hits, err := s.Search(n.Embedding, k, nil, n.ID, m.k.Rerank(ctx, n.Namespace))
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	var notes []amem.Note
	if err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		notes, err = tx.Notes(n.Namespace, ids)
		return err
	}); err != nil {
		return nil, err
	}
	byID := make(map[string]amem.Note, len(notes))
	for _, c := range notes {
		byID[c.ID] = c
	}
	out := make([]amem.Candidate, 0, len(hits))
	for _, h := range hits {
		if c, ok := byID[h.ID]; ok {
			out = append(out, amem.Candidate{Note: c, Similarity: float64(h.Score)})
		}
	}
	return out, nil
}
