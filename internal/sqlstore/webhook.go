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
