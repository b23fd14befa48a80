package sqlstore

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/amem-dev/amem/webhook"

	"github.com/amem-dev/amem"
)

// EncodeKinds stores a webhook's event kinds as one comma-separated text
// column, "" for every kind, so that RecordEvent can pick a
// namespace's webhooks that take a kind in the INSERT ... SELECT itself:
// ','||kinds||',' holds ','||kind||','.
func EncodeKinds(kinds []amem.EventKind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ",")
}

// DecodeKinds reverses EncodeKinds; never nil.
func DecodeKinds(s string) ([]amem.EventKind, error) {
	out := []amem.EventKind{}
	if s == "" {
		return out, nil
	}
	for k := range strings.SplitSeq(s, ",") {
		if k == "" || strings.ContainsAny(k, "%_") {
			return nil, fmt.Errorf("webhook kinds %q: malformed", s)
		}
		out = append(out, amem.EventKind(k))
	}
	return out, nil
}

// CheckEvent refuses an event a store would keep wrongly: its kind goes
// into a LIKE pattern, so only the known kinds pass.
func CheckEvent(e amem.Event) error {
	for _, k := range amem.EventKinds {
		if e.Kind == k {
			return nil
		}
	}
	return fmt.Errorf("%w: unknown event kind %q", amem.ErrInvalid, e.Kind)
}

// AttachHooks sets each claimed event's webhook, reading each webhook
// once.
func AttachHooks(ds []webhook.Delivery, read func(id string) (webhook.Hook, error)) error {
	hooks := map[string]webhook.Hook{}
	for i := range ds {
		id := ds[i].Hook.ID
		h, ok := hooks[id]
		if !ok {
			var err error
			if h, err = read(id); err != nil {
				return fmt.Errorf("webhook %s: %w", id, err)
			}
			hooks[id] = h
		}
		ds[i].Hook = h
	}
	return nil
}

// EventOrder sorts claimed events oldest first, the order ClaimEvents
// promises, which UPDATE ... RETURNING does not.
func EventOrder(ds []webhook.Delivery) []webhook.Delivery {
	slices.SortFunc(ds, func(a, b webhook.Delivery) int { return cmp.Compare(a.ID, b.ID) })
	return ds
}

// Cause bounds a failure's text as a webhook keeps it.
func Cause(s string) string {
	const max = 1024
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "")
}

// Querier runs statements in a store's transaction: both stores'
// transactions have it, so code the dialects agree on is written once.
type Querier interface {
	// QueryRowInto scans the first row into dest; found is false when
	// there is none.
	QueryRowInto(query string, args []any, dest ...any) (found bool, err error)
	Exec(query string, args ...any) error
}

// EventSQL are a store's statements for finishing webhook events:
// Delete (id, owner) and Release (id, owner, attempts, next) return the
// event's webhook; Hurry and CountDelivered take (webhook, at);
// RecordError (webhook, cause, at).
type EventSQL struct {
	Delete, Release, Hurry, CountDelivered, RecordError string
}

// FinishEvents applies a round's outcomes in order, inside the caller's
// transaction (webhook.Store.Finish). An event whose lease owner lost is
// left alone.
func FinishEvents(q Querier, stmts EventSQL, owner string, outs []webhook.Outcome) error {
	for _, o := range outs {
		var hook string
		if o.Delivered {
			found, err := q.QueryRowInto(stmts.Delete, []any{o.ID, owner}, &hook)
			if err == nil && found {
				err = q.Exec(stmts.Hurry, hook, o.At.UnixNano())
				if err == nil {
					err = q.Exec(stmts.CountDelivered, hook, o.At.UnixNano())
				}
			}
			if err != nil {
				return fmt.Errorf("webhook event %d delivered: %w", o.ID, err)
			}
			continue
		}
		var next *int64 // NULL: kept as failed
		if ns, ok, err := UnixNanos(o.Next); err != nil {
			return err
		} else if ok {
			next = &ns
		}
		found, err := q.QueryRowInto(stmts.Release, []any{o.ID, owner, o.Attempts, next}, &hook)
		if err == nil && found && o.Cause != "" {
			err = q.Exec(stmts.RecordError, hook, Cause(o.Cause), o.At.UnixNano())
		}
		if err != nil {
			return fmt.Errorf("webhook event %d released: %w", o.ID, err)
		}
	}
	return nil
}
