package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
	"github.com/amem-dev/amem/webhook"
)

var _ webhook.Store = (*Store)(nil)

// recordEvent fans an event out to the namespace's webhooks that take
// its kind, in one statement: with none (the usual case) it is one probe
// of webhooks_ns and writes nothing.
const recordEvent = `INSERT INTO webhook_events (webhook_id, ns, note_id, version, kind, created_at, next_at)
SELECT id, ns, $2, $3, $4, $5, $5 FROM webhooks
WHERE ns = $1 AND (kinds = '' OR (',' || kinds || ',') LIKE ('%,' || $4 || ',%'))`

// RecordEvent queues e for the namespace's webhooks that take its kind.
func (t *tx) RecordEvent(e amem.Event) error {
	if err := t.notWritable("record event"); err != nil {
		return err
	}
	if err := sqlstore.CheckEvent(e); err != nil {
		return err
	}
	if err := checkText("event", e.Namespace, e.NoteID); err != nil {
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
	insertWebhook = `INSERT INTO webhooks (id, ns, url, secret, kinds, created_at) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT DO NOTHING`
	selectWebhooks = `SELECT w.id, w.ns, w.url, w.kinds, w.created_at, w.delivered, w.last_delivered_at,
	w.last_error, w.last_error_at,
	(SELECT count(*) FROM webhook_events e WHERE e.webhook_id = w.id AND e.next_at IS NOT NULL),
	(SELECT count(*) FROM webhook_events e WHERE e.webhook_id = w.id AND e.next_at IS NULL)
FROM webhooks w WHERE w.ns = $1 ORDER BY w.created_at, w.id`
	deleteWebhook = `DELETE FROM webhooks WHERE ns = $1 AND id = $2`
	selectHook    = `SELECT id, ns, url, secret, kinds, created_at FROM webhooks WHERE id = $1`
	anyDueEvent   = `SELECT 1 FROM webhook_events WHERE next_at <= $1 LIMIT 1`
	// As in SQLite, plus SKIP LOCKED: workers of every instance polling
	// at once take different events without waiting on each other. An
	// event waits while an earlier one of its webhook and note is still
	// queued, so a note's events arrive in order.
	claimEvents = `UPDATE webhook_events SET lease_owner = $1, lease_until = $2
WHERE id IN (SELECT e.id FROM webhook_events e
	WHERE e.next_at <= $3 AND (e.lease_until IS NULL OR e.lease_until <= $3)
	AND NOT EXISTS (SELECT 1 FROM webhook_events p WHERE p.webhook_id = e.webhook_id
		AND p.note_id = e.note_id AND p.id < e.id AND p.next_at IS NOT NULL)
	ORDER BY e.id LIMIT $4
	FOR UPDATE SKIP LOCKED)
RETURNING id, webhook_id, ns, note_id, version, kind, created_at, attempts`
	deleteEvent    = `DELETE FROM webhook_events WHERE id = $1 AND lease_owner = $2 RETURNING webhook_id`
	hurryEvents    = `UPDATE webhook_events SET next_at = $2 WHERE webhook_id = $1 AND next_at > $2`
	countDelivered = `UPDATE webhooks SET delivered = delivered + 1, last_delivered_at = $2 WHERE id = $1`
	retryEvent     = `UPDATE webhook_events SET attempts = $3, next_at = $4, lease_owner = NULL, lease_until = NULL
WHERE id = $1 AND lease_owner = $2 RETURNING webhook_id`
	recordHookError = `UPDATE webhooks SET last_error = $2, last_error_at = $3 WHERE id = $1`
)

// CreateWebhook stores a new webhook; an existing ID is amem.ErrConflict.
func (s *Store) CreateWebhook(ctx context.Context, h webhook.Hook) error {
	return s.Update(ctx, func(atx amem.Tx) error {
		if err := checkText("webhook", h.ID, h.Namespace, h.URL, h.Secret); err != nil {
			return err
		}
		created, err := timeValue(h.CreatedAt)
		if err != nil {
			return err
		}
		tag, err := atx.(*tx).exec(insertWebhook, h.ID, h.Namespace, h.URL, h.Secret, sqlstore.EncodeKinds(h.Kinds), created)
		if err != nil {
			return fmt.Errorf("create webhook %s: %w", h.ID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("create webhook %s: %w", h.ID, amem.ErrConflict)
		}
		return nil
	})
}

// Webhooks lists a namespace's webhooks with their counts.
func (s *Store) Webhooks(ctx context.Context, ns string) ([]webhook.Status, error) {
	if err := checkText("namespace", ns); err != nil {
		return nil, err
	}
	var out []webhook.Status
	err := s.View(ctx, func(atx amem.Tx) error {
		rows, err := atx.(*tx).query(selectWebhooks, ns)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (webhook.Status, error) {
			var (
				st                         webhook.Status
				kinds                      string
				created                    int64
				lastDelivered, lastErrorAt pgtype.Int8
			)
			if err := row.Scan(&st.ID, &st.Namespace, &st.URL, &kinds, &created, &st.Delivered, &lastDelivered,
				&st.LastError, &lastErrorAt, &st.Pending, &st.Failed); err != nil {
				return st, err
			}
			st.CreatedAt = sqlstore.Time(created, true)
			st.LastDeliveredAt = timeOf(lastDelivered)
			st.LastErrorAt = timeOf(lastErrorAt)
			var err error
			st.Kinds, err = sqlstore.DecodeKinds(kinds)
			return st, err
		})
		return mapError(err)
	})
	if err != nil {
		return nil, fmt.Errorf("list webhooks of %s: %w", ns, err)
	}
	return out, nil
}

// DeleteWebhook removes a webhook; its events go with it (ON DELETE
// CASCADE).
func (s *Store) DeleteWebhook(ctx context.Context, ns, id string) error {
	if err := checkText("webhook", ns, id); err != nil {
		return err
	}
	return s.Update(ctx, func(atx amem.Tx) error {
		tag, err := atx.(*tx).exec(deleteWebhook, ns, id)
		if err != nil {
			return fmt.Errorf("delete webhook %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("webhook %s of namespace %s: %w", id, ns, amem.ErrNotFound)
		}
		return nil
	})
}

// ClaimEvents leases up to limit due events for owner, oldest first.
func (s *Store) ClaimEvents(ctx context.Context, owner string, now, until time.Time, limit int) ([]webhook.Delivery, error) {
	if owner == "" || limit < 1 {
		return nil, fmt.Errorf("claim webhook events: %w: owner %q, limit %d", amem.ErrInvalid, owner, limit)
	}
	if err := checkText("owner", owner); err != nil {
		return nil, err
	}
	// Polled every second or so, mostly with nothing due: a read first,
	// so that an empty outbox costs no write transaction.
	due := false
	err := s.View(ctx, func(atx amem.Tx) error {
		var one int
		err := atx.(*tx).queryRow(anyDueEvent, []any{now.UnixNano()}, &one)
		if errors.Is(err, pgx.ErrNoRows) {
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
		rows, err := t.query(claimEvents, owner, until.UnixNano(), now.UnixNano(), limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (webhook.Delivery, error) {
			var (
				d       webhook.Delivery
				kind    string
				created int64
			)
			err := row.Scan(&d.ID, &d.Hook.ID, &d.Namespace, &d.NoteID, &d.Version, &kind, &created, &d.Attempts)
			d.Kind, d.At = amem.EventKind(kind), sqlstore.Time(created, true)
			return d, err
		})
		if err != nil {
			return mapError(err)
		}
		return sqlstore.AttachHooks(out, func(id string) (webhook.Hook, error) {
			var (
				h       webhook.Hook
				kinds   string
				created int64
			)
			if err := t.queryRow(selectHook, []any{id}, &h.ID, &h.Namespace, &h.URL, &h.Secret, &kinds, &created); err != nil {
				return h, err
			}
			h.CreatedAt = sqlstore.Time(created, true)
			var err error
			h.Kinds, err = sqlstore.DecodeKinds(kinds)
			return h, err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("claim webhook events: %w", err)
	}
	return sqlstore.EventOrder(out), nil
}

// Finish records a round's outcomes in one transaction.
func (s *Store) Finish(ctx context.Context, owner string, outs []webhook.Outcome) error {
	if len(outs) == 0 {
		return nil
	}
	if err := checkText("owner", owner); err != nil {
		return err
	}
	for _, o := range outs {
		if err := checkText("webhook failure", sqlstore.Cause(o.Cause)); err != nil {
			return err
		}
	}
	return s.Update(ctx, func(atx amem.Tx) error {
		return sqlstore.FinishEvents(atx.(*tx), eventSQL, owner, outs)
	})
}

var eventSQL = sqlstore.EventSQL{Delete: deleteEvent, Release: retryEvent, Hurry: hurryEvents,
	CountDelivered: countDelivered, RecordError: recordHookError}
