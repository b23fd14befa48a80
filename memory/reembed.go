package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/amem-dev/amem"
)

// reembedBatch is how many notes are embedded per embedder call.
const reembedBatch = 64

// Reembed recomputes every vector of a namespace with the configured
// embedder and records it as the namespace's embedder, in one transaction:
// the namespace never holds vectors of two models. It is the explicit way
// to switch models (a namespace otherwise refuses a different embedder).
// Vectors are computed outside the transaction; if notes were added or
// changed meanwhile, the transaction is abandoned, those notes are
// embedded too and the write is tried again. It returns how many notes
// were re-embedded.
func (m *Memory) Reembed(ctx context.Context, ns string) (int, error) {
	return m.ReembedWith(ctx, ns, ReembedOptions{})
}

// ReembedOptions configure ReembedWith.
type ReembedOptions struct {
	// Progress, if set, is called after each batch of vectors with the
	// notes embedded so far and the namespace's count (the amem command
	// draws its progress bar with it). Notes changed meanwhile and
	// embedded again are not counted.
	Progress func(done, total int)
}

// ReembedWith is Reembed, reporting its progress as opts says.
func (m *Memory) ReembedWith(ctx context.Context, ns string, opts ReembedOptions) (int, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return 0, err
	}
	notes, err := m.allNotes(ctx, ns)
	if err != nil {
		return 0, err
	}
	if len(notes) == 0 {
		return 0, fmt.Errorf("%w: namespace %s has no notes", amem.ErrNotFound, ns)
	}
	for i := 0; i < len(notes); i += reembedBatch {
		batch := notes[i:min(i+reembedBatch, len(notes))]
		if err := m.embedNotes(ctx, batch); err != nil {
			return 0, err
		}
		if opts.Progress != nil {
			opts.Progress(i+len(batch), len(notes))
		}
	}
	vecs := make(map[string]amem.Note, len(notes))
	for _, n := range notes {
		vecs[n.ID] = n
	}
	emb := m.opts.Embedder
	for attempt := 0; attempt < 5; attempt++ {
		var stale []amem.Note
		count := 0
		err := m.update(ctx, func(tx amem.Tx) error {
			stale = nil
			info, err := tx.Namespace(ns)
			if err != nil {
				return err
			}
			info.Embedder, info.Dimensions = emb.Name(), emb.Dimensions()
			if err := tx.PutNamespace(info); err != nil {
				return err
			}
			cur, err := listAll(tx, ns)
			if err != nil {
				return err
			}
			for _, c := range cur {
				n, ok := vecs[c.ID]
				if !ok || n.Version != c.Version || m.opts.EmbedText(n) != m.opts.EmbedText(c) {
					stale = append(stale, c)
				}
			}
			if len(stale) > 0 {
				return errStaleVectors
			}
			for _, c := range cur {
				c.Embedding = vecs[c.ID].Embedding
				if err := tx.UpdateNote(c, c.Version); err != nil {
					return err
				}
			}
			count = len(cur)
			return nil
		})
		if err == nil {
			m.k.Advance(ctx, ns)
			return count, nil
		}
		if !errors.Is(err, errStaleVectors) {
			return 0, fmt.Errorf("re-embed %s: %w", ns, err)
		}
		// Rare: notes added or changed since the vectors were computed.
		if err := m.embedNotes(ctx, stale); err != nil {
			return 0, err
		}
		for _, n := range stale {
			vecs[n.ID] = n
		}
	}
	return 0, fmt.Errorf("re-embed %s: the namespace kept changing; try again", ns)
}

// embedNotes sets each note's Embedding from its embedding text.
func (m *Memory) embedNotes(ctx context.Context, notes []amem.Note) error {
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

// allNotes reads a namespace's notes, without vectors, in one snapshot.
func (m *Memory) allNotes(ctx context.Context, ns string) ([]amem.Note, error) {
	var out []amem.Note
	err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		out, err = listAll(tx, ns)
		return err
	})
	return out, err
}

func listAll(tx amem.Tx, ns string) ([]amem.Note, error) {
	var out []amem.Note
	err := amem.EachPage(func(after string, n int) ([]amem.Note, error) {
		return tx.ListNotes(ns, amem.ListQuery{After: after, Limit: n})
	}, func(page []amem.Note) (bool, error) {
		out = append(out, page...)
		return true, nil
	})
	return out, err
}

// errStaleVectors: notes changed after their vectors were computed;
// re-embed them and try again.
var errStaleVectors = errors.New("notes changed: re-embed and retry")
