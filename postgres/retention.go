package postgres

import (
	"fmt"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

var _ amem.Retainer = (*tx)(nil)

// migrationRetention is package sqlite's of the same name: each
// namespace's retention policy, max_age in nanoseconds, 0 for no limit.
const migrationRetention = `
CREATE TABLE retention (
	ns         text COLLATE "C" PRIMARY KEY,
	max_age    bigint NOT NULL,
	max_notes  bigint NOT NULL,
	updated_at bigint NOT NULL
);
`

const (
	upsertRetention = `INSERT INTO retention (ns, max_age, max_notes, updated_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (ns) DO UPDATE SET max_age = excluded.max_age, max_notes = excluded.max_notes, updated_at = excluded.updated_at`
	deleteRetention = `DELETE FROM retention WHERE ns = $1`
	selectRetention = `SELECT ns, max_age, max_notes FROM retention WHERE ns = $1`
	listRetention   = `SELECT ns, max_age, max_notes FROM retention ORDER BY ns`
	// countBefore counts within the index on (ns, event_time).
	countBefore = `SELECT count(*) FROM notes WHERE ns = $1 AND (event_time IS NULL OR event_time < $2)`
)

func (t *tx) PutRetention(ns string, r amem.Retention) error {
	if err := t.notWritable("put retention"); err != nil {
		return err
	}
	var err error
	if r.IsZero() {
		_, err = t.exec(deleteRetention, ns)
	} else {
		_, err = t.exec(upsertRetention, ns, int64(r.MaxAge), r.MaxNotes, time.Now().UnixNano())
	}
	if err != nil {
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
	if err := t.queryRow(countBefore, []any{ns, nanos}, &n); err != nil {
		return 0, fmt.Errorf("count before: %w", err)
	}
	return n, nil
}
