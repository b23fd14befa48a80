package postgres

import (
	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// The reads of NotesByEventTime (sqlstore.EventReads): $1 namespace, $2
// state (empty for any), $3 limit, then the key: $4 event time and $5 ID, or
// $4 ID alone for the undated reads.
//
// EXPLAIN (PostgreSQL 15, 60k notes in 3 namespaces, ANALYZEd): every
// dated read is "Index Scan [Backward] using notes_ns_event" with Index
// Cond (ns = $1 AND event_time >= $4) (<= newest first; the row
// comparison becomes a lossy bound on the index's event_time, kept as a
// Filter) under "Incremental Sort, Presorted Key: event_time" and Limit:
// it reads the page's rows and the ties of its last event time, wherever
// the page is. The undated reads are a scan of notes_ns_event with Index
// Cond (ns = $1 AND event_time IS NULL) and a sort of those notes alone.
// PostgreSQL sorts NULL last in an ascending index, hence the separate
// reads, as in SQLite.
const (
	byEventSelect = `SELECT ` + noteColumnsNoVector + ` FROM notes WHERE ns = $1 AND ($2 = '' OR enrich_state = $2) AND `

	byEventAsc       = byEventSelect + `event_time IS NOT NULL ORDER BY event_time, id LIMIT $3`
	byEventAscAfter  = byEventSelect + `(event_time, id) > ($4, $5) ORDER BY event_time, id LIMIT $3`
	byEventDesc      = byEventSelect + `event_time IS NOT NULL ORDER BY event_time DESC, id DESC LIMIT $3`
	byEventDescAfter = byEventSelect + `(event_time, id) < ($4, $5) ORDER BY event_time DESC, id DESC LIMIT $3`
	undatedAsc       = byEventSelect + `event_time IS NULL AND id > $4 ORDER BY id LIMIT $3`
	undatedDesc      = byEventSelect + `event_time IS NULL ORDER BY id DESC LIMIT $3`
	undatedDescAfter = byEventSelect + `event_time IS NULL AND id < $4 ORDER BY id DESC LIMIT $3`
)

// NotesByEventTime implements amem.EventTimePager.
func (t *tx) NotesByEventTime(ns string, after *amem.EventKey, limit int, newest bool, state amem.EnrichState) ([]amem.Note, error) {
	// A NUL would fail the statement, and with it the transaction.
	if err := checkText("namespace or state", ns, string(state)); err != nil {
		return nil, err
	}
	if after != nil {
		if err := checkText("after's ID", after.ID); err != nil {
			return nil, err
		}
	}
	return sqlstore.NotesByEventTime(after, limit, newest, func(r sqlstore.EventRead, limit int) ([]amem.Note, error) {
		args := []any{ns, string(state), limit}
		var q string
		switch {
		case r.Dated && !newest && r.After:
			q, args = byEventAscAfter, append(args, r.Time, r.ID)
		case r.Dated && !newest:
			q = byEventAsc
		case r.Dated && r.After:
			q, args = byEventDescAfter, append(args, r.Time, r.ID)
		case r.Dated:
			q = byEventDesc
		case !newest:
			q, args = undatedAsc, append(args, r.ID) // "" at the start
		case r.After:
			q, args = undatedDescAfter, append(args, r.ID)
		default:
			q = undatedDesc
		}
		return t.queryNotes(q, args...)
	})
}

var _ amem.EventTimePager = (*tx)(nil)
