package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
	"github.com/amem-dev/amem/webhook"
)

var _ webhook.Store = (*Store)(nil)

// recordEvent fans an event out to the namespace's webhooks that take
// its kind, in one statement: with none (the usual case) it is one probe
// of webhooks_ns and writes nothing.
const recordEvent = `INSERT INTO webhook_events (webhook_id, ns, note_id, version, kind, created_at, next_at)
SELECT id, ns, ?2, ?3, ?4, ?5, ?5 FROM webhooks
WHERE ns = ?1 AND (kinds = '' OR (',' || kinds || ',') LIKE ('%,' || ?4 || ',%'))`

// RecordEvent queues e for the namespace's webhooks that take its kind.
func (t *tx) RecordEvent(e amem.Event) error {
	if err := sqlstore.CheckEvent(e); err != nil {
		return err
	}
	at, err := timeValue(e.At)
	if err != nil {
		return err
	}
	if _, err := t.exec(recordEvent, e.Namespace, e.NoteID, e.Version, string(e.Kind), at); err != nil {
		return fmt.Errorf("record %s event of %s: %w", e.Kind, e.NoteID, err)
	}
	return nil
}

const (
	insertWebhook  = `INSERT INTO webhooks (id, ns, url, secret, kinds, created_at) VALUES (?, ?, ?, ?, ?, ?)`
	selectWebhooks = `SELECT w.id, w.ns, w.url, w.kinds, w.created_at, w.delivered, w.last_delivered_at,
	w.last_error, w.last_error_at,
	(SELECT count(*) FROM webhook_events e WHERE e.webhook_id = w.id AND e.next_at IS NOT NULL),
	(SELECT count(*) FROM webhook_events e WHERE e.webhook_id = w.id AND e.next_at IS NULL)
FROM webhooks w WHERE w.ns = ? ORDER BY w.created_at, w.id`
	deleteWebhook = `DELETE FROM webhooks WHERE ns = ? AND id = ?`
	selectHook    = `SELECT id, ns, url, secret, kinds, created_at FROM webhooks WHERE id = ?`
	// An event waits while an earlier one of its webhook and note is
	// still queued (not given up), so a note's events arrive in order.
	claimEvents = `UPDATE webhook_events SET lease_owner = ?1, lease_until = ?2
WHERE id IN (SELECT e.id FROM webhook_events e
	WHERE e.next_at <= ?3 AND (e.lease_until IS NULL OR e.lease_until <= ?3)
	AND NOT EXISTS (SELECT 1 FROM webhook_events p WHERE p.webhook_id = e.webhook_id
		AND p.note_id = e.note_id AND p.id < e.id AND p.next_at IS NOT NULL)
	ORDER BY e.id LIMIT ?4)
RETURNING id, webhook_id, ns, note_id, version, kind, created_at, attempts`
	anyDueEvent    = `SELECT 1 FROM webhook_events WHERE next_at <= ? LIMIT 1`
	deleteEvent    = `DELETE FROM webhook_events WHERE id = ? AND lease_owner = ? RETURNING webhook_id`
	hurryEvents    = `UPDATE webhook_events SET next_at = ?2 WHERE webhook_id = ?1 AND next_at > ?2`
	countDelivered = `UPDATE webhooks SET delivered = delivered + 1, last_delivered_at = ?2 WHERE id = ?1`
	retryEvent     = `UPDATE webhook_events SET attempts = ?3, next_at = ?4, lease_owner = NULL, lease_until = NULL
WHERE id = ?1 AND lease_owner = ?2 RETURNING webhook_id`
	recordHookError = `UPDATE webhooks SET last_error = ?2, last_error_at = ?3 WHERE id = ?1`
)

// CreateWebhook stores a new webhook.
func (s *Store) CreateWebhook(ctx context.Context, h webhook.Hook) error {
	return s.Update(ctx, func(atx amem.Tx) error {
		created, err := timeValue(h.CreatedAt)
		if err != nil {
			return err
		}
		_, err = atx.(*tx).exec(insertWebhook, h.ID, h.Namespace, h.URL, h.Secret, sqlstore.EncodeKinds(h.Kinds), created)
		if isConstraint(err, constraintPrimaryKey) {
			return fmt.Errorf("create webhook %s: %w", h.ID, amem.ErrConflict)
		}
		return err
	})
}

// Webhooks lists a namespace's webhooks with their counts.
func (s *Store) Webhooks(ctx context.Context, ns string) ([]webhook.Status, error) {
	var out []webhook.Status
	err := s.View(ctx, func(atx amem.Tx) error {
		rows, err := atx.(*tx).query(selectWebhooks, ns)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				st                         webhook.Status
				kinds                      string
				created                    int64
				lastDelivered, lastErrorAt sql.NullInt64
			)
			if err := rows.Scan(&st.ID, &st.Namespace, &st.URL, &kinds, &created, &st.Delivered, &lastDelivered,
				&st.LastError, &lastErrorAt, &st.Pending, &st.Failed); err != nil {
				return err
			}
			if st.Kinds, err = sqlstore.DecodeKinds(kinds); err != nil {
				return err
			}
			st.CreatedAt = sqlstore.Time(created, true)
			st.LastDeliveredAt = timeOf(lastDelivered)
			st.LastErrorAt = timeOf(lastErrorAt)
			out = append(out, st)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list webhooks of %s: %w", ns, err)
	}
	return out, nil
}

// DeleteWebhook removes a webhook; its events go with it (ON DELETE
// CASCADE).
func (s *Store) DeleteWebhook(ctx context.Context, ns, id string) error {
	return s.Update(ctx, func(atx amem.Tx) error {
		res, err := atx.(*tx).exec(deleteWebhook, ns, id)
		if err != nil {
			return fmt.Errorf("delete webhook %s: %w", id, err)
		}
		if ok, err := changed(res); !ok {
			if err == nil {
				err = fmt.Errorf("webhook %s of namespace %s: %w", id, ns, amem.ErrNotFound)
			}
			return err
		}
		return nil
	})
}

// ClaimEvents leases up to limit due events for owner, oldest first.
func (s *Store) ClaimEvents(ctx context.Context, owner string, now, until time.Time, limit int) ([]webhook.Delivery, error) {
	if owner == "" || limit < 1 {
		return nil, fmt.Errorf("claim webhook events: %w: owner %q, limit %d", amem.ErrInvalid, owner, limit)
	}
	// Polled every second or so, mostly with nothing due: a read first,
	// so that an empty outbox never takes the single write lock.
	due := false
	err := s.View(ctx, func(atx amem.Tx) error {
		var one int
		err := atx.(*tx).queryRow(anyDueEvent, now.UnixNano()).Scan(&one)
		if err == sql.ErrNoRows {
			return nil
		}
		due = err == nil
		return err
	})
	if err != nil || !due {
		return nil, err
	}
	var out []webhook.Delivery
	err = s.Update(ctx, func(atx amem.Tx) error {
		t := atx.(*tx)
		out = nil
		rows, err := t.query(claimEvents, owner, until.UnixNano(), now.UnixNano(), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				d       webhook.Delivery
				kind    string
				created int64
			)
			if err := rows.Scan(&d.ID, &d.Hook.ID, &d.Namespace, &d.NoteID, &d.Version, &kind, &created, &d.Attempts); err != nil {
				return err
			}
			d.Kind, d.At = amem.EventKind(kind), sqlstore.Time(created, true)
			out = append(out, d)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		return sqlstore.AttachHooks(out, func(id string) (webhook.Hook, error) {
			var (
				h       webhook.Hook
				kinds   string
				created int64
			)
			err := t.queryRow(selectHook, id).Scan(&h.ID, &h.Namespace, &h.URL, &h.Secret, &kinds, &created)
			if err != nil {
				return h, err
			}
			h.CreatedAt = sqlstore.Time(created, true)
			h.Kinds, err = sqlstore.DecodeKinds(kinds)
			return h, err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("claim webhook events: %w", err)
	}
	return sqlstore.EventOrder(out), nil
}

// Delivered removes a delivered event and hurries its webhook's others.
// Finish records a round's outcomes in one transaction.
func (s *Store) Finish(ctx context.Context, owner string, outs []webhook.Outcome) error {
	if len(outs) == 0 {
		return nil
	}
	return s.Update(ctx, func(atx amem.Tx) error {
		return sqlstore.FinishEvents(atx.(*tx), eventSQL, owner, outs)
	})
}

var eventSQL = sqlstore.EventSQL{Delete: deleteEvent, Release: retryEvent, Hurry: hurryEvents,
	CountDelivered: countDelivered, RecordError: recordHookError}
