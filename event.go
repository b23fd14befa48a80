package amem

import "time"

// EventKind names what happened to a note, as a webhook is told it.
type EventKind string

// The kinds of note events.
const (
	EventCreated  EventKind = "created"  // added or imported
	EventUpdated  EventKind = "updated"  // changed by Update or Restore
	EventEnriched EventKind = "enriched" // its enrichment finished
	EventEvolved  EventKind = "evolved"  // rewritten by a newer note's enrichment
	EventDeleted  EventKind = "deleted"  // deleted, into the trash or for good
	EventRestored EventKind = "restored" // brought back from the trash
)

// EventKinds lists every kind, in the order above.
var EventKinds = []EventKind{EventCreated, EventUpdated, EventEnriched, EventEvolved, EventDeleted, EventRestored}

// Event is one change of a note, queued for a namespace's webhooks by
// EventRecorder.RecordEvent in the transaction that makes the change, so that an
// acknowledged write always has its event and a rolled-back one never
// does.
type Event struct {
	Namespace string
	NoteID    string
	// Version is the note's version after the change; for a deletion,
	// the last version it had.
	Version int
	Kind    EventKind
	At      time.Time
}
