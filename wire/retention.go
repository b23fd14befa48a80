package wire

import (
	"time"

	"github.com/amem-dev/amem"
)

// Retention is a namespace's retention policy and what it would move to
// the trash now.
type Retention struct {
	Namespace string `json:"namespace" jsonschema:"the memory space"`
	// MaxAge is written as amem.FormatAge writes it: whole days ("90d")
	// when it is some, else a Go duration ("36h0m0s"); "" for no limit.
	MaxAge   string `json:"max_age" jsonschema:"notes whose event time is older than this go to the trash: whole days (90d) or a duration (36h0m0s); empty for no limit"`
	MaxNotes int    `json:"max_notes" jsonschema:"only the newest this many notes by event time are kept, older ones go to the trash; 0 for no limit"`
	Policy   string `json:"policy" jsonschema:"the policy in words"`
	Due      int    `json:"due" jsonschema:"how many notes the policy would move to the trash now"`
	// OldestDue is the first note due, absent when none is.
	OldestDue *EventRef `json:"oldest_due,omitempty" jsonschema:"the oldest note the policy would move to the trash now; absent when none is due"`
}

// EventRef names a note with its event time.
type EventRef struct {
	ID        string    `json:"id" jsonschema:"the note's ID"`
	EventTime time.Time `json:"event_time,omitzero" jsonschema:"when it was said or happened (RFC 3339); absent when it has no time"`
}

// RetentionOf is a namespace's policy r and what it removes now as
// clients see them.
func RetentionOf(ns string, r amem.Retention, due amem.RetentionDue) Retention {
	out := Retention{Namespace: ns, MaxNotes: r.MaxNotes, Policy: r.String(), Due: due.Notes}
	if r.MaxAge > 0 {
		out.MaxAge = amem.FormatAge(r.MaxAge)
	}
	if due.Notes > 0 {
		out.OldestDue = &EventRef{ID: due.Oldest.ID, EventTime: due.Oldest.Time}
	}
	return out
}

// RetentionInput sets a namespace's retention policy: both fields
// absent, "" and 0 turn it off.
type RetentionInput struct {
	MaxAge   string `json:"max_age,omitempty" jsonschema:"whole days (90d) or a duration (2160h); empty or 0 for no limit"`
	MaxNotes int    `json:"max_notes,omitempty" jsonschema:"keep only the newest this many notes; 0 for no limit"`
}

// Retention reads the input as a policy, checked.
func (in RetentionInput) Retention() (amem.Retention, error) {
	age, err := amem.ParseAge(in.MaxAge)
	if err != nil {
		return amem.Retention{}, err
	}
	r := amem.Retention{MaxAge: age, MaxNotes: in.MaxNotes}
	return r, amem.ValidRetention(r)
}
