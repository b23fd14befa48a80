package memory

import (
	"errors"

	"github.com/amem-dev/amem"
)

// pageByEventTime is browseByEventTime on a store that pages by event
// time (amem.EventTimePager), for a browse without a filter: a keyset
// read of the page's notes from the index on (ns, event_time), whose cost
// doesn't grow with the namespace (BenchmarkBrowseByEventTime: about
// 1 ms a page of 100, first or 150th, at 20,000 notes, where the scan
// took 250-500 ms). A state is checked on the rows the index leads to,
// so a page of a state few notes are in may read up to every row of the
// namespace (though it keeps no more than the page to sort).
func pageByEventTime(tx amem.Tx, p amem.EventTimePager, ns string, q amem.BrowseQuery) ([]amem.Note, error) {
	var after *amem.EventKey
	if q.After != "" {
		k, err := eventKeyOf(tx, ns, q.After)
		if err != nil {
			return nil, err
		}
		after = &k
	}
	out := []amem.Note{}
	for len(out) < q.Limit {
		// A store may return fewer than asked (a cap on its pages): read
		// on until a read returns none.
		notes, err := p.NotesByEventTime(ns, after, q.Limit-len(out), q.Newest, q.State)
		if err != nil || len(notes) == 0 {
			return out, err
		}
		out = append(out, notes...)
		last := notes[len(notes)-1]
		after = &amem.EventKey{Time: last.EventTime, ID: last.ID}
	}
	return out, nil
}

// eventKeyOf is the place in event-time order of the note id, the last
// of the previous page, as the note is now: a note whose time changed
// between pages moves with it.
func eventKeyOf(tx amem.Tx, ns, id string) (amem.EventKey, error) {
	n, err := tx.Note(ns, id)
	if errors.Is(err, amem.ErrNotFound) {
		return amem.EventKey{}, invalidf("after=%s: no such note (deleted since?): start from the first page", id)
	}
	if err != nil {
		return amem.EventKey{}, err
	}
	return amem.EventKey{Time: n.EventTime, ID: n.ID}, nil
}
