package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/amem-dev/amem"
)

// Retention: forgetting on purpose (issue 30, item 3). A namespace's
// policy (amem.Retention) is kept in the store (amem.Retainer); the
// workers apply it at each compaction pass (sweepRetention), and
// ApplyRetention does so on demand (amem retention --apply). The notes
// past it are deleted as Delete deletes them, into the trash when the
// memory keeps one, with a deleted event each, so they expire by the
// trash's rules and Trash().Restore brings one back meanwhile.
//
// Ranking priors for recency or recall frequency were not added with
// it: none was measured to help on the held-out sets (docs/SEARCH.md).

const (
	// retentionBatch is how many notes one transaction of a sweep moves
	// to the trash: each is read with its vector and history and written
	// to the trash, so a batch holds the namespace's write order for
	// about as long as an import of as many lines.
	retentionBatch = 100
	// sweepLimit is how many notes the workers move to the trash per
	// namespace at each pass (Options' compaction interval, 10 minutes
	// by default): a policy set on a large namespace is applied over
	// several passes, never in one long burst of writes.
	sweepLimit = 2000
)

// errNoRetention is SetRetention's error over a store that keeps no
// policies.
var errNoRetention = fmt.Errorf("this store keeps no retention policies: %w", errors.ErrUnsupported)

// retainer returns tx's policies and its event-time pages, both needed
// to apply a policy.
func retainer(tx amem.Tx) (amem.Retainer, amem.EventTimePager, bool) {
	r, ok := tx.(amem.Retainer)
	p, ok2 := tx.(amem.EventTimePager)
	return r, p, ok && ok2
}

// SetRetention sets a namespace's retention policy; the zero Retention
// removes it. The workers apply it at their next pass; notes it removes
// go to the trash. A store without amem.Retainer is errors.ErrUnsupported.
func (m *Memory) SetRetention(ctx context.Context, ns string, r amem.Retention) error {
	if err := amem.ValidNamespace(ns); err != nil {
		return err
	}
	if err := amem.ValidRetention(r); err != nil {
		return err
	}
	return m.update(ctx, func(tx amem.Tx) error {
		ret, _, ok := retainer(tx)
		if !ok {
			return errNoRetention
		}
		return ret.PutRetention(ns, r)
	})
}

// Retention returns a namespace's retention policy, the zero one if it
// has none (or the store keeps none).
func (m *Memory) Retention(ctx context.Context, ns string) (amem.Retention, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return amem.Retention{}, err
	}
	var r amem.Retention
	err := m.view(ctx, func(tx amem.Tx) error {
		ret, _, ok := retainer(tx)
		if !ok {
			return nil
		}
		var err error
		r, err = ret.Retention(ns)
		return err
	})
	return r, err
}

// RetentionDue says what a namespace's policy would move to the trash
// now: how many notes, and the oldest.
func (m *Memory) RetentionDue(ctx context.Context, ns string) (amem.Retention, amem.RetentionDue, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return amem.Retention{}, amem.RetentionDue{}, err
	}
	var (
		r   amem.Retention
		due amem.RetentionDue
	)
	err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		r, due, err = m.retentionDueIn(tx, ns)
		return err
	})
	return r, due, err
}

// retentionDueIn reads a namespace's policy and what it would remove now.
func (m *Memory) retentionDueIn(tx amem.Tx, ns string) (amem.Retention, amem.RetentionDue, error) {
	ret, pager, ok := retainer(tx)
	if !ok {
		return amem.Retention{}, amem.RetentionDue{}, nil
	}
	r, err := ret.Retention(ns)
	if err != nil || r.IsZero() {
		return r, amem.RetentionDue{}, err
	}
	n, err := m.dueCount(tx, ret, ns, r)
	if err != nil || n == 0 {
		return r, amem.RetentionDue{}, err
	}
	first, err := pager.NotesByEventTime(ns, nil, 1, false, "")
	if err != nil || len(first) == 0 {
		return r, amem.RetentionDue{}, err
	}
	return r, amem.RetentionDue{Notes: n, Oldest: amem.EventKey{Time: first[0].EventTime, ID: first[0].ID}}, nil
}

// dueCount is how many of the namespace's oldest notes r removes now.
func (m *Memory) dueCount(tx amem.Tx, ret amem.Retainer, ns string, r amem.Retention) (int, error) {
	st, err := tx.Stats(ns)
	if err != nil {
		return 0, err
	}
	past := 0
	if r.MaxAge > 0 {
		if past, err = ret.CountBefore(ns, m.opts.Now().Add(-r.MaxAge)); err != nil {
			return 0, err
		}
	}
	return r.Due(st.Notes, past), nil
}

// ApplyRetention moves the notes past their namespace's policy to the
// trash now (deleted for good when the memory keeps no trash), oldest
// first by event time, and returns how many; ns "" applies every
// namespace's policy. limit > 0 moves at most limit notes a namespace.
// Each transaction moves at most 100 notes and reads the policy and the
// notes due afresh, so a note changed or a policy changed meanwhile is
// judged as it is then. Every note moved gets a deleted event.
func (m *Memory) ApplyRetention(ctx context.Context, ns string, limit int) (int, error) {
	var names []string
	if ns != "" {
		if err := amem.ValidNamespace(ns); err != nil {
			return 0, err
		}
		names = []string{ns}
	} else {
		err := m.view(ctx, func(tx amem.Tx) error {
			ret, _, ok := retainer(tx)
			if !ok {
				return nil
			}
			all, err := ret.Retentions()
			for name := range all {
				names = append(names, name)
			}
			return err
		})
		if err != nil {
			return 0, err
		}
		slices.Sort(names)
	}
	total := 0
	for _, name := range names {
		n, err := m.applyRetention(ctx, name, limit)
		total += n
		if err != nil {
			return total, fmt.Errorf("apply retention to %s: %w", name, err)
		}
	}
	return total, nil
}

// applyRetention applies one namespace's policy, a batch a transaction.
//
// Order: each transaction writes the trash first (expiring its old
// entries), which takes the namespace's write order (amem.Trasher; on
// PostgreSQL the feed row's lock), so the policy, the count and the page
// of oldest notes read after it are the state its deletions replace, and
// two sweeps of one namespace, in one process or two, run one after the
// other: the second counts again and finds the notes gone. With the
// trash off nothing is written first, as in Delete, and on PostgreSQL
// the reads see each statement's latest commits: a delete committed by
// another process between the count and the deletions can leave the
// namespace a few notes under MaxNotes; a note added then is judged at
// the next pass.
func (m *Memory) applyRetention(ctx context.Context, ns string, limit int) (int, error) {
	total := 0
	for limit <= 0 || total < limit {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		batch := retentionBatch
		if limit > 0 {
			batch = min(batch, limit-total)
		}
		moved := 0
		err := m.update(ctx, func(tx amem.Tx) error {
			moved = 0
			tr, keep := m.trasher(tx)
			if keep {
				// A trash write first, so that the notes read next are
				// the ones deleted (see amem.Trasher).
				if err := m.expireIn(tr, ns); err != nil {
					return err
				}
			}
			ret, pager, ok := retainer(tx)
			if !ok {
				return nil
			}
			r, err := ret.Retention(ns)
			if err != nil || r.IsZero() {
				return err
			}
			due, err := m.dueCount(tx, ret, ns, r)
			if err != nil || due == 0 {
				return err
			}
			page, err := pager.NotesByEventTime(ns, nil, min(due, batch), false, "")
			if err != nil {
				return err
			}
			for _, p := range page[:min(len(page), due, batch)] {
				cur, err := tx.Note(ns, p.ID) // with its vector, for the trash
				if err != nil {
					return err
				}
				if err := m.deleteIn(tx, tr, keep, cur); err != nil {
					return err
				}
				moved++
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total += moved
		if moved == 0 {
			break
		}
		m.k.Advance(ctx, ns)
		if moved < batch {
			break
		}
	}
	return total, nil
}

// sweepRetention is the workers' pass: every namespace's policy applied,
// at most sweepLimit notes a namespace.
func (m *Memory) sweepRetention(ctx context.Context) {
	n, err := m.ApplyRetention(ctx, "", sweepLimit)
	if err != nil && ctx.Err() == nil && !errors.Is(err, amem.ErrClosed) {
		m.log.Warn("apply retention", "err", err)
	}
	if n > 0 {
		m.log.Info("retention removed notes", "notes", n)
	}
}
