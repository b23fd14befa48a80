package amem

import "time"

// EventKey is a note's place in event-time order: its EventTime, ties
// broken by ID (compared in byte order). A zero Time sorts before every
// other time, as the oldest.
type EventKey struct {
	Time time.Time
	ID   string
}

// EventTimePager is a Tx's optional ability to page through a
// namespace's notes in event-time order with an indexed read of the page
// alone (a keyset query on (ns, event_time)). A Tx without it: Memory's
// Browse by event time reads every note of the namespace for its time and
// sorts them, so a page costs in proportion to the namespace; it does so
// for a browse with a Filter whatever the Tx.
type EventTimePager interface {
	// NotesByEventTime returns notes of ns in (EventTime, ID) order,
	// newest first if newest, that come after after in that order (from
	// the first if after is nil) and are in state (any state if it is
	// empty): at most limit of them, with their links and without their
	// embeddings. A limit of 0 is the store's default page, a negative
	// one ErrInvalid; a store may return fewer than a large limit (the
	// SQL stores: at most 10,000), so a caller wanting more reads on
	// after the last note returned until a read returns none.
	NotesByEventTime(ns string, after *EventKey, limit int, newest bool, state EnrichState) ([]Note, error)
}
