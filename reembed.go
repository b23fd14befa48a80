package amem

import (
	"context"

	"fmt"

	"github.com/amem-dev/amem/index"
)

// reembedBatch is how many notes are embedded per embedder call.
const reembedBatch = 64

// Reembed recomputes every vector of a namespace with the configured
// embedder and records it as the namespace's embedder, in one transaction:
// the namespace never holds vectors of two models. It is the explicit way
// to switch models (a namespace otherwise refuses a different embedder).
// Notes changed while the vectors were computed are embedded again under
// the namespace's write lock. It returns how many notes were re-embedded.
func (m *Memory) Reembed(ctx context.Context, ns string) (int, error) {
	if err := ValidNamespace(ns); err != nil {
		return 0, err
	}
	var notes []Note
	after := ""
	for {
		page, err := m.List(ctx, ns, ListQuery{After: after, Limit: 500})
		if err != nil {
			return 0, err
		}
		notes = append(notes, page...)
		if len(page) < 500 {
			break
		}
		after = page[len(page)-1].ID
	}
	if len(notes) == 0 {
		return 0, fmt.Errorf("%w: namespace %s has no notes", ErrNotFound, ns)
	}
	if err := m.embedNotes(ctx, notes); err != nil {
		return 0, err
	}

	// The space may not load (that is why one re-embeds), so take its
	// write lock without loading it and install a fresh index afterwards.
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return 0, ErrClosed
	}
	s := m.spaces[ns]
	if s == nil {
		s = &space{}
		m.spaces[ns] = s
	}
	m.mu.Unlock()
	s.write.Lock()
	defer s.write.Unlock()

	emb := m.opts.Embedder
	idx := index.NewFlat(emb.Dimensions())
	err := m.store.Update(ctx, func(tx Tx) error {
		info, err := tx.Namespace(ns)
		if err != nil {
			return err
		}
		info.Embedder, info.Dimensions = emb.Name(), emb.Dimensions()
		if err := tx.PutNamespace(info); err != nil {
			return err
		}
		var stale []Note
		byID := make(map[string]Note, len(notes))
		for _, n := range notes {
			byID[n.ID] = n
		}
		cur, err := m.allNotes(tx, ns)
		if err != nil {
			return err
		}
		for _, c := range cur {
			n, ok := byID[c.ID]
			if !ok || n.Version != c.Version || n.Content != c.Content {
				stale = append(stale, c)
				continue
			}
			c.Embedding = n.Embedding
			if err := tx.UpdateNote(c); err != nil {
				return err
			}
			if err := idx.Upsert(c.ID, c.Embedding); err != nil {
				return err
			}
		}
		// Rare: notes added or changed since the first pass.
		if err := m.embedNotes(ctx, stale); err != nil {
			return err
		}
		for _, c := range stale {
			if err := tx.UpdateNote(c); err != nil {
				return err
			}
			if err := idx.Upsert(c.ID, c.Embedding); err != nil {
				return err
			}
		}
		notes = cur
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("re-embed %s: %w", ns, err)
	}
	s.once.Do(func() {}) // a fresh space counts as loaded now
	s.mu.Lock()
	s.idx = idx
	s.mu.Unlock()
	return len(notes), nil
}

// embedNotes sets each note's Embedding from its embedding text.
func (m *Memory) embedNotes(ctx context.Context, notes []Note) error {
	for i := 0; i < len(notes); i += reembedBatch {
		batch := notes[i:min(i+reembedBatch, len(notes))]
		texts := make([]string, len(batch))
		for j, n := range batch {
			texts[j] = m.opts.EmbedText(n)
		}
		vecs, err := m.embed(ctx, texts)
		if err != nil {
			return err
		}
		for j := range batch {
			batch[j].Embedding = vecs[j]
		}
	}
	return nil
}

func (m *Memory) allNotes(tx Tx, ns string) ([]Note, error) {
	var out []Note
	after := ""
	for {
		page, err := tx.ListNotes(ns, ListQuery{After: after, Limit: 500})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 500 {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}
