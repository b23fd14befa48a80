package sqlite

import (
	"fmt"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

var _ amem.Retainer = (*tx)(nil)

// migrationRetention keeps each namespace's retention policy
// (amem.Retainer): max_age in nanoseconds and max_notes, 0 for no
// limit. A namespace without a row has no policy; a policy may be set
// before the namespace holds a note, so the table does not reference
// namespaces.
const migrationRetention = `
CREATE TABLE retention (
	ns         TEXT PRIMARY KEY,
	max_age    INTEGER NOT NULL,
	max_notes  INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT;
`

const (
	upsertRetention = `INSERT INTO retention (ns, max_age, max_notes, updated_at) VALUES (?, ?, ?, ?)
ON CONFLICT (ns) DO UPDATE SET max_age = excluded.max_age, max_notes = excluded.max_notes, updated_at = excluded.updated_at`
	deleteRetention = `DELETE FROM retention WHERE ns = ?`
	selectRetention = `SELECT ns, max_age, max_notes FROM retention WHERE ns = ?`
	listRetention   = `SELECT ns, max_age, max_notes FROM retention ORDER BY ns`
	// countBefore counts within the index notes_ns_event (ns, event_time):
	// undated notes are its NULLs, which sort first.
	countBefore = `SELECT count(*) FROM notes WHERE ns = ? AND (event_time IS NULL OR event_time < ?)`
)

func (t *tx) PutRetention(ns string, r amem.Retention) error {
	if r.IsZero() {
		if _, err := t.exec(deleteRetention, ns); err != nil {
			return fmt.Errorf("put retention: %w", err)
		}
		return nil
	}
	if _, err := t.exec(upsertRetention, ns, int64(r.MaxAge), r.MaxNotes, time.Now().UnixNano()); err != nil {
		return fmt.Errorf("put retention: %w", err)
	}
	return nil
}

func (t *tx) Retention(ns string) (amem.Retention, error) {
	all, err := sqlstore.Read(t.rows, "retention", sqlstore.Retentions, selectRetention, ns)
	return all[ns], err
}

func (t *tx) Retentions() (map[string]amem.Retention, error) {
	return sqlstore.Read(t.rows, "retention", sqlstore.Retentions, listRetention)
}

func (t *tx) CountBefore(ns string, at time.Time) (int, error) {
	nanos, _, err := sqlstore.UnixNanos(at)
	if err != nil {
		return 0, fmt.Errorf("count before: %w", err)
	}
	var n int
	if err := t.queryRow(countBefore, ns, nanos).Scan(&n); err != nil {
		return 0, fmt.Errorf("count before: %w", err)
	}
	return n, nil
}
