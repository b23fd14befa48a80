package kernel

import (
	"math"
	"time"

	"github.com/amem-dev/amem"

	"github.com/amem-dev/amem/lexindex"
	"github.com/amem-dev/amem/search/conversation"
)

// textOf is what the full-text index holds of a note: its text, its
// event time (for the conversation profile's replies and day spread),
// and what the conversation profile's ranker reads of its content (its
// speaker, names and traits: conversation.Fields), derived when the
// kernel indexes the note and kept in the index in step with the feed.
// Reading a candidate's row from the store at search time instead cost
// about 1 ms a search at 100k notes, which broke issue 12's latency bound
// (hybrid p50 within 1.5x of vector-only); a copy of each note's term
// sets beside the index cost about 950 heap bytes a note, which broke its
// memory bound at 1M notes.
func textOf(n amem.Note) lexindex.Fields {
	f := lexindex.Fields{Content: n.Content, Context: n.Context, Keywords: n.Keywords, Tags: n.Tags, Time: eventNanos(n.EventTime)}
	f.Speaker, f.Names, f.Traits = conversation.Fields(n.Content)
	return f
}

// eventNanos is an event time as the full-text index keeps it
// (lexindex.Fields.Time): nanoseconds since 1970, 0 for none, and past
// what nanoseconds hold (before 1678, after 2262) the nearest they do.
func eventNanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Year() < 1678:
		return math.MinInt64
	case t.Year() > 2261:
		return math.MaxInt64
	}
	return t.UnixNano()
}
