package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// The change feed: see amem.Tx and migration4.

// takeSeq advances a namespace's head and returns it. The UPDATE locks
// the namespace's feed row until commit (in SQLite the one write lock
// does more), so a namespace's numbers commit in the order they are
// taken.
const takeSeq = `INSERT INTO feeds (ns, head) VALUES (?, 1)
ON CONFLICT (ns) DO UPDATE SET head = head + 1 RETURNING head`

// changeSeq returns the change number of this transaction's writes to
// ns, taking it at the first write: one number per transaction and
// namespace, so a follower sees a transaction's changes together.
func (t *tx) changeSeq(ns string) (int64, error) {
	if seq, ok := t.seqs[ns]; ok {
		return seq, nil
	}
	var seq int64
	if err := t.queryRow(takeSeq, ns).Scan(&seq); err != nil {
		return 0, fmt.Errorf("change feed of %s: %w", ns, err)
	}
	if t.seqs == nil {
		t.seqs = make(map[string]int64)
	}
	t.seqs[ns] = seq
	return seq, nil
}

const selectFeed = `SELECT coalesce(f.head, 0), coalesce(f.horizon, 0), coalesce(n.embedder, ''), coalesce(n.dims, 0)
FROM (SELECT ? AS ns) q
LEFT JOIN feeds f ON f.ns = q.ns
LEFT JOIN namespaces n ON n.name = q.ns`

// FeedHead returns the namespace's feed position and embedder in one
// indexed read: the cost of every search's catch-up when nothing changed.
func (t *tx) FeedHead(ns string) (amem.Feed, error) {
	var f amem.Feed
	if err := t.queryRow(selectFeed, ns).Scan(&f.Head, &f.Horizon, &f.Embedder, &f.Dimensions); err != nil {
		return amem.Feed{}, fmt.Errorf("feed of %s: %w", ns, err)
	}
	return f, nil
}

const (
	selectChanged = `SELECT change_seq, ` + noteColumns + ` FROM notes
WHERE ns = ? AND change_seq > ? ORDER BY change_seq`
	selectTombstones = `SELECT seq, id FROM tombstones WHERE ns = ? AND seq > ? ORDER BY seq`
)

// Changes streams the changed notes of ns after seq after, merged in
// number order with the tombstones (read first: there are few). Every
// note's embedding is decoded into one buffer.
func (t *tx) Changes(ns string, after int64, fn func(amem.Change) error) error {
	var dead []amem.Change
	rows, err := t.query(selectTombstones, ns, after)
	if err != nil {
		return fmt.Errorf("changes of %s: %w", ns, err)
	}
	for rows.Next() {
		c := amem.Change{Deleted: true}
		if err := rows.Scan(&c.Seq, &c.ID); err != nil {
			rows.Close()
			return fmt.Errorf("changes of %s: %w", ns, err)
		}
		dead = append(dead, c)
	}
	// A read that failed part way must not drop the tombstones after it.
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("changes of %s: %w", ns, err)
	}

	rows, err = t.query(selectChanged, ns, after)
	if err != nil {
		return fmt.Errorf("changes of %s: %w", ns, err)
	}
	defer rows.Close()
	return sqlstore.Changes(t.ctx, ns, rows, dead, func(vec []float32) (int64, amem.Note, error) {
		var seq int64
		n, err := scanNoteInto(rows, vec, &seq)
		return seq, n, err
	}, fn)
}

const (
	selectOldTombstones = `SELECT coalesce(max(seq), 0), count(*) FROM tombstones WHERE ns = ? AND deleted_at < ?`
	deleteOldTombstones = `DELETE FROM tombstones WHERE ns = ? AND deleted_at < ?`
	raiseHorizon        = `UPDATE feeds SET horizon = max(horizon, ?) WHERE ns = ?`
)

// CompactFeed drops the tombstones of deletions before t. Only their
// numbers matter to followers, so the horizon rises to the highest one
// dropped; a tombstone kept below it (a clock that went back) is
// harmless.
func (t *tx) CompactFeed(ns string, before time.Time) (int, error) {
	var (
		top   int64
		count int
	)
	cut := before.UnixNano()
	if err := t.queryRow(selectOldTombstones, ns, cut).Scan(&top, &count); err != nil {
		return 0, fmt.Errorf("compact feed of %s: %w", ns, err)
	}
	if count == 0 {
		return 0, nil
	}
	if _, err := t.exec(deleteOldTombstones, ns, cut); err != nil {
		return 0, fmt.Errorf("compact feed of %s: %w", ns, err)
	}
	if _, err := t.exec(raiseHorizon, top, ns); err != nil {
		return 0, fmt.Errorf("compact feed of %s: %w", ns, err)
	}
	return count, nil
}

// Claims. A claim is two columns of the note, so taking one is a single
// conditional UPDATE: whoever's UPDATE commits first holds it.
const (
	claimDue = `UPDATE notes SET claim_owner = ?1, claim_until = ?2
WHERE seq IN (SELECT seq FROM notes
	WHERE due_at <= ?3 AND (claim_until IS NULL OR claim_until <= ?3)
	ORDER BY due_at, id LIMIT ?4)
RETURNING ns, id, due_at`
	claimNote = `UPDATE notes SET claim_owner = ?1, claim_until = ?2
WHERE ns = ?3 AND id = ?4 AND (claim_until IS NULL OR claim_until <= ?5 OR claim_owner = ?1)`
	renewClaim   = `UPDATE notes SET claim_until = ? WHERE ns = ? AND id = ? AND claim_owner = ?`
	releaseClaim = `UPDATE notes SET claim_owner = NULL, claim_until = NULL WHERE ns = ? AND id = ? AND claim_owner = ?`
)

// ClaimDue claims up to limit due notes for owner, oldest due first.
func (t *tx) ClaimDue(owner string, now, until time.Time, limit int) ([]amem.NoteRef, error) {
	if owner == "" || limit < 1 {
		return nil, fmt.Errorf("claim due notes: %w: owner %q, limit %d", amem.ErrInvalid, owner, limit)
	}
	rows, err := t.query(claimDue, owner, until.UnixNano(), now.UnixNano(), limit)
	if err != nil {
		return nil, fmt.Errorf("claim due notes: %w", err)
	}
	defer rows.Close()
	var got []sqlstore.Due
	for rows.Next() {
		var d sqlstore.Due
		if err := rows.Scan(&d.Ref.Namespace, &d.Ref.ID, &d.At); err != nil {
			return nil, fmt.Errorf("claim due notes: %w", err)
		}
		got = append(got, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim due notes: %w", err)
	}
	return sqlstore.DueOrder(got), nil
}

// Claim claims one note for owner; a live claim of another owner is
// amem.ErrBusy.
func (t *tx) Claim(ns, id, owner string, now, until time.Time) error {
	if owner == "" {
		return fmt.Errorf("claim %s: %w: no owner", id, amem.ErrInvalid)
	}
	res, err := t.exec(claimNote, owner, until.UnixNano(), ns, id, now.UnixNano())
	if err != nil {
		return fmt.Errorf("claim %s: %w", id, err)
	}
	if ok, err := changed(res); !ok {
		if err != nil {
			return fmt.Errorf("claim %s: %w", id, err)
		}
		if err := t.exists(ns, id); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		return fmt.Errorf("claim %s: %w", id, amem.ErrBusy)
	}
	return nil
}

// RenewClaim extends owner's claim.
func (t *tx) RenewClaim(ns, id, owner string, until time.Time) error {
	return t.ownClaim("renew claim", renewClaim, ns, id, owner, until.UnixNano(), ns, id, owner)
}

// ReleaseClaim ends owner's claim.
func (t *tx) ReleaseClaim(ns, id, owner string) error {
	return t.ownClaim("release claim", releaseClaim, ns, id, owner, ns, id, owner)
}

// ownClaim runs an update that only the claim's owner can make: no row
// changed means the note is gone (amem.ErrNotFound) or the claim is
// another's (amem.ErrConflict).
func (t *tx) ownClaim(what, query, ns, id, owner string, args ...any) error {
	res, err := t.exec(query, args...)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", what, id, err)
	}
	if ok, err := changed(res); !ok {
		if err != nil {
			return fmt.Errorf("%s on %s: %w", what, id, err)
		}
		if err := t.exists(ns, id); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return fmt.Errorf("%s on %s: %s does not hold it: %w", what, id, owner, amem.ErrConflict)
	}
	return nil
}

// exists is nil if the note is in ns, amem.ErrNotFound if not.
func (t *tx) exists(ns, id string) error {
	var v int
	err := t.queryRow(selectVersion, ns, id).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return sqlstore.NotFound(ns, id)
	}
	return err
}
