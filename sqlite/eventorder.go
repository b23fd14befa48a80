package sqlite

import (
	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// The reads of NotesByEventTime (sqlstore.EventReads): ?1 namespace, ?2
// state (empty for any), ?3 limit, ?4 event time, ?5 ID.
//
// Each walks the index notes_ns_event (ns, event_time) from the page's
// key and stops after ?3 rows plus the rest of the last event time's ties
// (EXPLAIN QUERY PLAN: "SEARCH notes USING INDEX notes_ns_event (ns=? AND
// event_time>?)", then "USE TEMP B-TREE FOR LAST TERM OF ORDER BY" to
// order ties by id: the index holds the rowid, not the id). The row value
// (event_time, id) > (?4, ?5) is a range on the index's event_time.
// INDEXED BY pins the plan: for the undated reads (event_time IS NULL,
// ORDER BY id) the planner would otherwise walk notes_ns_id, every note
// of the namespace in ID order, to skip the sort. TestEventTimePlans
// checks every plan.
const (
	byEventSelect = `SELECT ` + noteColumnsNoVector + ` FROM notes INDEXED BY notes_ns_event WHERE ns = ?1 AND (?2 = '' OR enrich_state = ?2) AND `

	byEventAsc       = byEventSelect + `event_time IS NOT NULL ORDER BY event_time, id LIMIT ?3`
	byEventAscAfter  = byEventSelect + `(event_time, id) > (?4, ?5) ORDER BY event_time, id LIMIT ?3`
	byEventDesc      = byEventSelect + `event_time IS NOT NULL ORDER BY event_time DESC, id DESC LIMIT ?3`
	byEventDescAfter = byEventSelect + `(event_time, id) < (?4, ?5) ORDER BY event_time DESC, id DESC LIMIT ?3`
	undatedAsc       = byEventSelect + `event_time IS NULL AND id > ?5 ORDER BY id LIMIT ?3`
	undatedDesc      = byEventSelect + `event_time IS NULL ORDER BY id DESC LIMIT ?3`
	undatedDescAfter = byEventSelect + `event_time IS NULL AND id < ?5 ORDER BY id DESC LIMIT ?3`
)

// NotesByEventTime implements amem.EventTimePager.
func (t *tx) NotesByEventTime(ns string, after *amem.EventKey, limit int, newest bool, state amem.EnrichState) ([]amem.Note, error) {
	return sqlstore.NotesByEventTime(after, limit, newest, func(r sqlstore.EventRead, limit int) ([]amem.Note, error) {
		return t.queryNotes(eventTimeQuery(r, newest), ns, string(state), limit, r.Time, r.ID)
	})
}

// eventTimeQuery is the statement of one read. Every statement takes the
// five parameters, used or not (SQLite allows it).
func eventTimeQuery(r sqlstore.EventRead, newest bool) string {
	switch {
	case r.Dated && !newest && r.After:
		return byEventAscAfter
	case r.Dated && !newest:
		return byEventAsc
	case r.Dated && r.After:
		return byEventDescAfter
	case r.Dated:
		return byEventDesc
	case !newest:
		return undatedAsc // after "" at the start
	case r.After:
		return undatedDescAfter
	default:
		return undatedDesc
	}
}

var _ amem.EventTimePager = (*tx)(nil)
