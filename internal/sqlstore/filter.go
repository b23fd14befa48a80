package sqlstore

import "github.com/amem-dev/amem"

// EventRange is the event-time part of an amem.Filter as column values:
// From <= event_time < To, where a zero bound is no bound.
type EventRange struct {
	// Bounded is whether the filter has a bound at all, and so passes no
	// note without an event time (NULL).
	Bounded bool
	// HasFrom and HasTo say whether From and To bound the column; a bound
	// beyond what a time column holds (years 1678-2261) bounds nothing.
	HasFrom, HasTo bool
	From, To       int64 // unix nanoseconds
	// None is true when no note can pass: a From after every storable
	// time, or a To before them.
	None bool
}

// Events returns f's event-time range, its bounds clamped to the times a
// column holds.
func Events(f amem.Filter) EventRange {
	var r EventRange
	r.Bounded = !f.From.IsZero() || !f.To.IsZero()
	if !f.From.IsZero() && f.From.After(MinTime) {
		if f.From.After(MaxTime) {
			return EventRange{None: true}
		}
		r.HasFrom, r.From = true, f.From.UnixNano()
	}
	if !f.To.IsZero() && !f.To.After(MaxTime) {
		if !f.To.After(MinTime) {
			return EventRange{None: true}
		}
		r.HasTo, r.To = true, f.To.UnixNano()
	}
	return r
}
