package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/amem-dev/amem"
)

// DefaultTrashFor is how long a deleted note stays in the trash.
const DefaultTrashFor = 30 * 24 * time.Hour

// Trash is a Memory's trash: the notes Delete removed, each kept with its
// vector, its links both ways and its history for Options.TrashFor, in
// the store (amem.Trasher), so every process sharing it sees one trash.
// For search, the indexes and every read of notes a trashed note is gone.
// Over a store without amem.Trasher, Delete deletes for good and the
// trash is always empty. Safe for concurrent use, as Memory is.
type Trash struct{ m *Memory }

// Trash returns the memory's trash.
func (m *Memory) Trash() Trash { return Trash{m} }

// Retention is how long a deleted note is kept before it is deleted for
// good (Options.TrashFor); 0 when the trash is off.
func (t Trash) Retention() time.Duration { return max(t.m.opts.TrashFor, 0) }

// trasher returns tx's trash when the memory keeps one.
func (m *Memory) trasher(tx amem.Tx) (amem.Trasher, bool) {
	tr, ok := tx.(amem.Trasher)
	return tr, ok && m.opts.TrashFor > 0
}

// expireIn deletes for good the namespace's entries whose time in the
// trash is up.
func (m *Memory) expireIn(tr amem.Trasher, ns string) error {
	_, err := tr.EmptyTrash(ns, m.opts.Now().Add(-m.opts.TrashFor))
	return err
}

// expired reports whether an entry deleted at was due to be deleted for
// good by now: it is treated as gone even before a worker removes it.
func (m *Memory) expired(at time.Time) bool {
	return at.Before(m.opts.Now().Add(-m.opts.TrashFor))
}

// List pages through a namespace's trash in ID order; entries come
// without vectors or history.
func (t Trash) List(ctx context.Context, ns string, q amem.TrashQuery) ([]amem.Trashed, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return nil, err
	}
	if q.After != "" {
		if err := validID(q.After); err != nil {
			return nil, err
		}
	}
	out := []amem.Trashed{}
	err := t.m.view(ctx, func(tx amem.Tx) error {
		tr, ok := t.m.trasher(tx)
		if !ok {
			return nil
		}
		page, err := tr.ListTrashed(ns, q)
		for _, e := range page {
			if !t.m.expired(e.DeletedAt) {
				out = append(out, e)
			}
		}
		return err
	})
	return out, err
}

// Lookup finds a trashed note by ID in any namespace, with its history.
// Like Memory.Lookup it is for administration (the CLI resolving an ID).
func (t Trash) Lookup(ctx context.Context, id string) (amem.Trashed, error) {
	if err := validID(id); err != nil {
		return amem.Trashed{}, err
	}
	infos, err := t.m.Namespaces(ctx)
	if err != nil {
		return amem.Trashed{}, err
	}
	for _, info := range infos {
		e, err := t.entry(ctx, info.Name, id)
		if !errors.Is(err, amem.ErrNotFound) {
			return e, err
		}
	}
	return amem.Trashed{}, fmt.Errorf("note %s is not in the trash: %w", id, amem.ErrNotFound)
}

// entry reads one unexpired entry of the trash.
func (t Trash) entry(ctx context.Context, ns, id string) (amem.Trashed, error) {
	var e amem.Trashed
	err := t.m.view(ctx, func(tx amem.Tx) error {
		tr, ok := t.m.trasher(tx)
		if !ok {
			return fmt.Errorf("note %s is not in the trash: %w", id, amem.ErrNotFound)
		}
		var err error
		if e, err = tr.TrashedNote(ns, id); err == nil && t.m.expired(e.DeletedAt) {
			err = fmt.Errorf("note %s has expired from the trash: %w", id, amem.ErrNotFound)
		}
		return err
	})
	return e, err
}

// Restore brings a trashed note back as a new version (actor restore),
// with its vector, its history and its links to the notes that still
// exist. A namespace embedded by another model than the Memory's is
// ErrDimensionMismatch (an *amem.EmbedderMismatchError); a note of the
// namespace with the same ID (imported since) ErrConflict; a note not in
// the trash, ErrNotFound.
func (t Trash) Restore(ctx context.Context, ns, id string) (amem.Note, error) {
	m := t.m
	if err := validID(id); err != nil {
		return amem.Note{}, err
	}
	if err := amem.ValidNamespace(ns); err != nil {
		return amem.Note{}, err
	}
	e, err := t.entry(ctx, ns, id)
	if err != nil {
		return amem.Note{}, err
	}
	vec, err := m.restoredVector(ctx, e.Note)
	if err != nil {
		return amem.Note{}, err
	}
	var back amem.Note
	err = m.update(ctx, func(tx amem.Tx) error {
		tr, ok := m.trasher(tx)
		if !ok {
			return fmt.Errorf("note %s is not in the trash: %w", id, amem.ErrNotFound)
		}
		// A trash write first, so that the entry read next is the one
		// removed (see amem.Trasher); a second restore racing this one
		// then finds nothing to remove.
		if err := m.expireIn(tr, ns); err != nil {
			return err
		}
		cur, err := tr.TrashedNote(ns, id)
		if err != nil {
			return err
		}
		if !cur.DeletedAt.Equal(e.DeletedAt) {
			return fmt.Errorf("note %s was deleted again meanwhile; try again: %w", id, amem.ErrConflict)
		}
		if _, err := tr.DeleteTrashed(ns, []string{id}); err != nil {
			return err
		}
		back, err = m.putBack(tx, cur, vec)
		return err
	})
	if err != nil {
		return amem.Note{}, fmt.Errorf("restore %s: %w", id, err)
	}
	m.k.Advance(ctx, ns)
	if back.Enrichment.State == amem.EnrichPending && m.opts.Enrich.Async {
		m.enr.Notify()
	}
	return m.Get(ctx, ns, id)
}

// putBack inserts a trashed note as its next version, then its history,
// a version saying it was restored, and the links whose other end still
// exists.
func (m *Memory) putBack(tx amem.Tx, e amem.Trashed, vec []float32) (amem.Note, error) {
	prev := e.Note
	n := prev.Clone()
	n.Links = []amem.Link{}
	n.Embedding = vec
	for _, v := range e.Versions {
		n.Version = max(n.Version, v.Version)
	}
	n.Version++
	n.UpdatedAt = m.opts.Now().UTC()
	if err := tx.InsertNote(n); err != nil {
		return amem.Note{}, err
	}
	for _, v := range e.Versions {
		if err := tx.AddVersion(v); err != nil {
			return amem.Note{}, err
		}
	}
	if err := tx.AddVersion(amem.NewVersion(n, amem.ActorRestore, "restored from the trash", &prev)); err != nil {
		return amem.Note{}, err
	}
	for _, l := range prev.Links {
		if err := tx.PutLink(n.Namespace, l); err != nil && !errors.Is(err, amem.ErrNotFound) {
			return amem.Note{}, err
		}
	}
	return n, m.recordEvent(tx, n, amem.EventRestored)
}

// restoredVector is the vector a restored note comes back with: its own,
// or a fresh one if it had none of the namespace's size. A namespace
// embedded by another model than ours is refused, as every write is.
func (m *Memory) restoredVector(ctx context.Context, n amem.Note) ([]float32, error) {
	var info amem.NamespaceInfo
	err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		info, err = tx.Namespace(n.Namespace)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := m.checkInfo(info); err != nil {
		return nil, err
	}
	if len(n.Embedding) == info.Dimensions {
		return n.Embedding, nil
	}
	vecs, err := m.embed(ctx, []string{m.opts.EmbedText(n)})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// Purge deletes the trashed notes with the given IDs for good and
// returns how many there were; IDs not in the trash are skipped.
func (t Trash) Purge(ctx context.Context, ns string, ids []string) (int, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return 0, err
	}
	for _, id := range ids {
		if err := validID(id); err != nil {
			return 0, err
		}
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var n int
	err := t.m.update(ctx, func(tx amem.Tx) error {
		tr, ok := t.m.trasher(tx)
		if !ok {
			return nil
		}
		var err error
		n, err = tr.DeleteTrashed(ns, ids)
		return err
	})
	return n, err
}

// Empty deletes every note in a namespace's trash for good and returns
// how many there were.
func (t Trash) Empty(ctx context.Context, ns string) (int, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return 0, err
	}
	var n int
	err := t.m.update(ctx, func(tx amem.Tx) error {
		tr, ok := t.m.trasher(tx)
		if !ok {
			return nil
		}
		var err error
		n, err = tr.EmptyTrash(ns, time.Time{})
		return err
	})
	return n, err
}

// Expire deletes for good the notes of every namespace that have been in
// the trash longer than Retention, and returns how many. The workers run
// it now and then, and each Delete for its namespace.
func (t Trash) Expire(ctx context.Context) (int, error) {
	infos, err := t.m.Namespaces(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	before := t.m.opts.Now().Add(-t.m.opts.TrashFor)
	for _, info := range infos {
		err := t.m.update(ctx, func(tx amem.Tx) error {
			tr, ok := t.m.trasher(tx)
			if !ok {
				return nil
			}
			n, err := tr.EmptyTrash(info.Name, before)
			total += n
			return err
		})
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Purge deletes a note for good, whether it is live (with its links and
// history, and a deleted event) or in the trash. A note in neither is
// ErrNotFound.
func (m *Memory) Purge(ctx context.Context, ns, id string) error {
	if err := validID(id); err != nil {
		return err
	}
	if err := amem.ValidNamespace(ns); err != nil {
		return err
	}
	live := false
	err := m.update(ctx, func(tx amem.Tx) error {
		trashed := 0
		if tr, ok := tx.(amem.Trasher); ok { // even with the trash off: it may hold notes from before
			var err error
			if trashed, err = tr.DeleteTrashed(ns, []string{id}); err != nil {
				return err
			}
		}
		cur, err := tx.Note(ns, id)
		if errors.Is(err, amem.ErrNotFound) && trashed > 0 {
			return nil
		}
		if err != nil {
			return err
		}
		live = true
		if err := tx.DeleteNote(ns, id); err != nil {
			return err
		}
		return m.recordEvent(tx, cur, amem.EventDeleted)
	})
	if err != nil {
		return fmt.Errorf("purge %s: %w", id, err)
	}
	if live {
		m.k.Advance(ctx, ns)
	}
	return nil
}
