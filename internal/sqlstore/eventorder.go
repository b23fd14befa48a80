package sqlstore

import (
	"fmt"

	"github.com/amem-dev/amem"
)

// EventRead is one indexed read of a page of amem.EventTimePager's
// NotesByEventTime. Notes without an event time are NULL in the column;
// they sort first (the oldest), by ID, and NULL compares with nothing, so
// a page is read in at most two reads: the dated notes, by (event_time,
// id), and the undated ones, by id, in the page's order.
type EventRead struct {
	// Dated reads the notes with an event time; otherwise those without.
	Dated bool
	// After starts after (Time, ID) (dated) or after ID (undated);
	// otherwise the read starts at its first note in the page's order.
	After bool
	Time  int64 // unix nanoseconds; only for a dated read After
	ID    string
}

// EventReads returns the reads of a page after after (nil: the first
// page), oldest first or newest first, in the order they are made: each
// goes on where the one before it ran out.
func EventReads(after *amem.EventKey, newest bool) ([]EventRead, error) {
	undated := EventRead{}
	dated := EventRead{Dated: true}
	if after != nil {
		t, ok, err := UnixNanos(after.Time)
		if err != nil {
			return nil, fmt.Errorf("notes by event time: after: %w", err)
		}
		if ok {
			dated = EventRead{Dated: true, After: true, Time: t, ID: after.ID}
		} else {
			undated = EventRead{After: true, ID: after.ID}
		}
	}
	switch {
	case !newest && after != nil && dated.After:
		return []EventRead{dated}, nil // past every undated note
	case !newest:
		return []EventRead{undated, dated}, nil
	case after != nil && undated.After:
		return []EventRead{undated}, nil // past every dated note
	default:
		return []EventRead{dated, undated}, nil
	}
}

// NotesByEventTime is amem.EventTimePager's NotesByEventTime over a
// store's read: read returns at most limit notes of one EventRead in the
// page's order (ascending, or descending if newest). The reads are made
// in turn until limit notes are read.
func NotesByEventTime(after *amem.EventKey, limit int, newest bool, read func(r EventRead, limit int) ([]amem.Note, error)) ([]amem.Note, error) {
	if limit < 0 {
		return nil, fmt.Errorf("notes by event time: %w: limit %d is negative", amem.ErrInvalid, limit)
	}
	limit, _ = ListLimit(limit)
	reads, err := EventReads(after, newest)
	if err != nil {
		return nil, err
	}
	out := []amem.Note{}
	for _, r := range reads {
		notes, err := read(r, limit-len(out))
		if err != nil {
			return nil, fmt.Errorf("notes by event time: %w", err)
		}
		if out = append(out, notes...); len(out) == limit {
			break
		}
	}
	return out, nil
}
