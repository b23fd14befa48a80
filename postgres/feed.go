package postgres

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// The change feed: see amem.Tx and migration1.
//
// A sequence would not do: its values are handed out before commit, so
// a transaction that took 7 could commit after one that took 8, and a
// follower that read 8 would ask for "after 8" and miss 7 forever.
// Instead each namespace's number is its feeds row, advanced by an
// UPDATE that locks the row until the transaction ends: the next writer
// of the namespace waits at that UPDATE and, under READ COMMITTED, then
// reads the committed head. Numbers commit in the order they are taken,
// and a snapshot that sees head H sees every change numbered H or lower.
//
// Lock order. A transaction that locked a note row and then waits for
// the feed row while the feed row's holder waits for that note would
// deadlock (PostgreSQL breaks it after a second by failing one). So
// every method that writes a namespace's notes, links or versions, or
// claims on them, locks the namespace's feed row first (lockFeed), and
// takes note rows only after. ClaimDue, which takes notes of any
// namespace, never waits for a note row (SKIP LOCKED) and so can hold
// note rows without the feed's. Writers of different namespaces don't
// wait for each other.

// takeSeq advances a namespace's head and returns it; lockFeedRow locks
// the row without advancing it, for writes that are not note changes.
const (
	takeSeq = `INSERT INTO feeds (ns, head) VALUES ($1, 1)
ON CONFLICT (ns) DO UPDATE SET head = feeds.head + 1 RETURNING head`
	lockFeedRow = `SELECT head FROM feeds WHERE ns = $1 FOR NO KEY UPDATE`
)

// changeSeq returns the change number of this transaction's writes to
// ns, taking it at the first write: one number per transaction and
// namespace, so a follower sees a transaction's changes together.
func (t *tx) changeSeq(ns string) (int64, error) {
	if seq, ok := t.seqs[ns]; ok {
		return seq, nil
	}
	var seq int64
	if err := t.queryRow(takeSeq, []any{ns}, &seq); err != nil {
		return 0, fmt.Errorf("change feed of %s: %w", ns, err)
	}
	if t.seqs == nil {
		t.seqs = make(map[string]int64)
	}
	t.seqs[ns] = seq
	t.lock(ns)
	return seq, nil
}

// lockFeed locks the namespace's feed row, once per transaction, before
// a write that takes no change number (links, versions, claims).
func (t *tx) lockFeed(ns string) error {
	if t.locks[ns] {
		return nil
	}
	var head int64
	err := t.queryRow(lockFeedRow, []any{ns}, &head)
	if errors.Is(err, pgx.ErrNoRows) {
		// Never written: it has no note rows to wait for. Not
		// remembered, so that a later write locks the row it creates.
		return nil
	}
	if err != nil {
		return fmt.Errorf("lock the change feed of %s: %w", ns, err)
	}
	t.lock(ns)
	return nil
}

func (t *tx) lock(ns string) {
	if t.locks == nil {
		t.locks = make(map[string]bool)
	}
	t.locks[ns] = true
}

const selectFeed = `SELECT coalesce(f.head, 0), coalesce(f.horizon, 0), coalesce(n.embedder, ''), coalesce(n.dims, 0)
FROM (SELECT $1::text COLLATE "C" AS ns) q
LEFT JOIN feeds f ON f.ns = q.ns
LEFT JOIN namespaces n ON n.name = q.ns`

// FeedHead returns the namespace's feed position and embedder in one
// indexed read: the cost of every search's catch-up when nothing changed.
func (t *tx) FeedHead(ns string) (amem.Feed, error) {
	var f amem.Feed
	if err := t.queryRow(selectFeed, []any{ns}, &f.Head, &f.Horizon, &f.Embedder, &f.Dimensions); err != nil {
		return amem.Feed{}, fmt.Errorf("feed of %s: %w", ns, err)
	}
	return f, nil
}

const (
	selectChanged = `SELECT change_seq, ` + noteColumns + ` FROM notes
WHERE ns = $1 AND change_seq > $2 ORDER BY change_seq`
	selectTombstones = `SELECT seq, id FROM tombstones WHERE ns = $1 AND seq > $2 ORDER BY seq`
)

// Changes streams the changed notes of ns after seq after, merged in
// number order with the tombstones (read first: there are few). Every
// note's embedding is decoded into one buffer.
func (t *tx) Changes(ns string, after int64, fn func(amem.Change) error) error {
	rows, err := t.query(selectTombstones, ns, after)
	if err != nil {
		return fmt.Errorf("changes of %s: %w", ns, err)
	}
	dead, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (amem.Change, error) {
		c := amem.Change{Deleted: true}
		return c, row.Scan(&c.Seq, &c.ID)
	})
	if err != nil {
		return fmt.Errorf("changes of %s: %w", ns, mapError(err))
	}

	rows, err = t.query(selectChanged, ns, after)
	if err != nil {
		return fmt.Errorf("changes of %s: %w", ns, err)
	}
	defer rows.Close()
	return sqlstore.Changes(t.ctx, ns, mapped{rows}, dead, func(vec []float32) (int64, amem.Note, error) {
		var seq int64
		n, err := scanNote(rows, vec, &seq)
		return seq, n, err
	}, fn)
}

const (
	selectOldTombstones = `SELECT coalesce(max(seq), 0), count(*) FROM tombstones WHERE ns = $1 AND deleted_at < $2`
	deleteOldTombstones = `DELETE FROM tombstones WHERE ns = $1 AND deleted_at < $2`
	raiseHorizon        = `UPDATE feeds SET horizon = greatest(horizon, $1) WHERE ns = $2`
)

// CompactFeed drops the tombstones of deletions before t. Only their
// numbers matter to followers, so the horizon rises to the highest one
// dropped; a tombstone kept below it (a clock that went back) is
// harmless.
func (t *tx) CompactFeed(ns string, before time.Time) (int, error) {
	if err := t.notWritable("compact feed"); err != nil {
		return 0, err
	}
	if err := t.lockFeed(ns); err != nil {
		return 0, err
	}
	var (
		top   int64
		count int
	)
	cut := before.UnixNano()
	if err := t.queryRow(selectOldTombstones, []any{ns, cut}, &top, &count); err != nil {
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
// conditional UPDATE, whose condition READ COMMITTED evaluates again on
// the row as committed once its lock is granted: of two claimants, the
// second finds the first's claim and changes nothing.
//
// ClaimDue picks its notes with FOR NO KEY UPDATE SKIP LOCKED: workers of
// every instance polling at once each take different notes without
// waiting on each other, and a note locked by a writer is left for the
// next poll. (NO KEY, so that it does not wait on, or block, the key
// share locks that inserting links and versions take on their notes.)
const (
	claimDue = `UPDATE notes SET claim_owner = $1, claim_until = $2
WHERE id IN (SELECT id FROM notes
	WHERE due_at <= $3 AND (claim_until IS NULL OR claim_until <= $3)
	ORDER BY due_at, id LIMIT $4
	FOR NO KEY UPDATE SKIP LOCKED)
RETURNING ns, id, due_at`
	claimNote = `UPDATE notes SET claim_owner = $1, claim_until = $2
WHERE ns = $3 AND id = $4 AND (claim_until IS NULL OR claim_until <= $5 OR claim_owner = $1)`
	renewClaim   = `UPDATE notes SET claim_until = $1 WHERE ns = $2 AND id = $3 AND claim_owner = $4`
	releaseClaim = `UPDATE notes SET claim_owner = NULL, claim_until = NULL WHERE ns = $1 AND id = $2 AND claim_owner = $3`
)

// ClaimDue claims up to limit due notes for owner, oldest due first.
func (t *tx) ClaimDue(owner string, now, until time.Time, limit int) ([]amem.NoteRef, error) {
	if owner == "" || limit < 1 {
		return nil, fmt.Errorf("claim due notes: %w: owner %q, limit %d", amem.ErrInvalid, owner, limit)
	}
	if err := t.notWritable("claim due notes"); err != nil {
		return nil, err
	}
	if err := checkText("claim owner", owner); err != nil {
		return nil, err
	}
	rows, err := t.query(claimDue, owner, until.UnixNano(), now.UnixNano(), limit)
	if err != nil {
		return nil, fmt.Errorf("claim due notes: %w", err)
	}
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (sqlstore.Due, error) {
		var d sqlstore.Due
		return d, row.Scan(&d.Ref.Namespace, &d.Ref.ID, &d.At)
	})
	if err != nil {
		return nil, fmt.Errorf("claim due notes: %w", mapError(err))
	}
	return sqlstore.DueOrder(got), nil
}

// Claim claims one note for owner; a live claim of another owner is
// amem.ErrBusy.
func (t *tx) Claim(ns, id, owner string, now, until time.Time) error {
	if owner == "" {
		return fmt.Errorf("claim %s: %w: no owner", id, amem.ErrInvalid)
	}
	if err := t.notWritable("claim"); err != nil {
		return err
	}
	if err := checkText("claim owner", owner); err != nil {
		return err
	}
	if err := t.lockFeed(ns); err != nil {
		return fmt.Errorf("claim %s: %w", id, err)
	}
	tag, err := t.exec(claimNote, owner, until.UnixNano(), ns, id, now.UnixNano())
	if err != nil {
		return fmt.Errorf("claim %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
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
	if err := t.notWritable(what); err != nil {
		return err
	}
	if err := checkText("claim owner", owner); err != nil {
		return err
	}
	if err := t.lockFeed(ns); err != nil {
		return fmt.Errorf("%s on %s: %w", what, id, err)
	}
	tag, err := t.exec(query, args...)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", what, id, err)
	}
	if tag.RowsAffected() == 0 {
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
	err := t.queryRow(selectVersion, []any{ns, id}, &v)
	if errors.Is(err, pgx.ErrNoRows) {
		return sqlstore.NotFound(ns, id)
	}
	return err
}
