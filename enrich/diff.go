package enrich

import (
	"encoding/json"
	"strings"

	"github.com/amem-dev/amem"
)

// Changes lists the fields that differ between two states, each as JSON,
// in a fixed field order.
func Changes(a, b amem.Snapshot) []amem.FieldChange {
	var out []amem.FieldChange
	add := func(field string, old, new any) {
		o, _ := json.Marshal(old)
		n, _ := json.Marshal(new)
		if string(o) != string(n) {
			out = append(out, amem.FieldChange{Field: field, Old: string(o), New: string(n)})
		}
	}
	add("content", a.Content, b.Content)
	if !a.EventTime.Equal(b.EventTime) {
		add("event_time", a.EventTime, b.EventTime)
	}
	add("keywords", nonNil(a.Keywords), nonNil(b.Keywords))
	add("tags", nonNil(a.Tags), nonNil(b.Tags))
	add("curator_tags", nonNil(a.CuratorTags), nonNil(b.CuratorTags))
	add("context", a.Context, b.Context)
	add("metadata", nonNilMap(a.Metadata), nonNilMap(b.Metadata))
	if !a.ValidUntil.Equal(b.ValidUntil) {
		add("valid_until", a.ValidUntil, b.ValidUntil)
	}
	add("superseded_by", a.SupersededBy, b.SupersededBy)
	// As the wire's snapshot names it: a list, so that a change of owner
	// reads as one change.
	add("caller_set", nonNilAttrs(a.CallerSet()), nonNilAttrs(b.CallerSet()))
	if out == nil {
		out = []amem.FieldChange{}
	}
	return out
}

// SameSnapshot reports whether two states have no field change between
// them.
func SameSnapshot(a, b amem.Snapshot) bool { return len(Changes(a, b)) == 0 }

// Version is the history row of n, changed by actor for reason from prev
// (nil for a new note): its field changes and snapshot, at n.UpdatedAt.
func Version(n amem.Note, actor amem.Actor, reason string, prev *amem.Note) amem.Version {
	snap := n.Snapshot()
	var changes []amem.FieldChange
	if prev == nil {
		changes = Changes(amem.Snapshot{}, snap)
	} else {
		changes = Changes(prev.Snapshot(), snap)
	}
	return amem.Version{
		NoteID: n.ID, Namespace: n.Namespace, Version: n.Version,
		Actor: actor, Reason: reason, Changes: changes, Snapshot: snap,
		CreatedAt: n.UpdatedAt,
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilAttrs(s []amem.Attribute) []amem.Attribute {
	if s == nil {
		return []amem.Attribute{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// merge3 applies the change base->proposed to current: items the proposal
// added are appended to current, items it removed are removed. It lets an
// evolution computed from an older copy of a note land on a newer one
// without losing the newer copy's changes.
func merge3(base, proposed, current []string) []string {
	key := strings.ToLower
	inBase := make(map[string]bool, len(base))
	for _, s := range base {
		inBase[key(s)] = true
	}
	inProp := make(map[string]bool, len(proposed))
	for _, s := range proposed {
		inProp[key(s)] = true
	}
	out := make([]string, 0, len(current)+len(proposed))
	seen := make(map[string]bool, len(current)+len(proposed))
	for _, s := range current {
		k := key(s)
		if (inBase[k] && !inProp[k]) || seen[k] {
			continue // removed by the proposal
		}
		seen[k] = true
		out = append(out, s)
	}
	for _, s := range proposed {
		k := key(s)
		if !inBase[k] && !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
