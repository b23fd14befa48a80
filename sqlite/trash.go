package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

var _ amem.Trasher = (*tx)(nil)

// migrationTrash adds the trash (amem.Trasher): a deleted note's row,
// vector and history, kept apart from notes so that no read of live
// notes has to leave trashed ones out. trash_deleted serves the expiry
// of old entries.
const migrationTrash = `
CREATE TABLE trash (
	ns         TEXT NOT NULL,
	id         TEXT NOT NULL,
	deleted_at INTEGER NOT NULL,
	note       TEXT NOT NULL,
	embedding  BLOB,
	versions   TEXT NOT NULL,
	PRIMARY KEY (ns, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX trash_deleted ON trash (ns, deleted_at);
`

const (
	upsertTrash = `INSERT INTO trash (ns, id, deleted_at, note, embedding, versions) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (ns, id) DO UPDATE SET deleted_at = excluded.deleted_at, note = excluded.note,
	embedding = excluded.embedding, versions = excluded.versions`
	selectTrashed = `SELECT deleted_at, note, embedding, versions FROM trash WHERE ns = ? AND id = ?`
	listTrashed   = `SELECT deleted_at, note, NULL, '[]' FROM trash WHERE ns = ? AND id > ? ORDER BY id LIMIT ?`
	deleteTrashed = `DELETE FROM trash WHERE ns = ? AND id IN (SELECT value FROM json_each(?))`
	emptyTrash    = `DELETE FROM trash WHERE ns = ? AND deleted_at < ?`
	emptyAllTrash = `DELETE FROM trash WHERE ns = ?`
)

func (t *tx) PutTrashed(tr amem.Trashed) error {
	args, err := sqlstore.TrashValues(tr)
	if err != nil {
		return fmt.Errorf("put trashed: %w", err)
	}
	if _, err := t.exec(upsertTrash, args...); err != nil {
		return fmt.Errorf("put trashed %s: %w", tr.Note.ID, err)
	}
	return nil
}

func (t *tx) TrashedNote(ns, id string) (amem.Trashed, error) {
	tr, err := sqlstore.ScanTrashed(t.queryRow(selectTrashed, ns, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = sqlstore.NotFound(ns, id)
	}
	if err != nil {
		return amem.Trashed{}, fmt.Errorf("trashed note: %w", err)
	}
	return tr, nil
}

func (t *tx) ListTrashed(ns string, q amem.TrashQuery) ([]amem.Trashed, error) {
	limit, err := sqlstore.ListLimit(q.Limit)
	if err != nil {
		return nil, err
	}
	return sqlstore.ReadAll(t.rows, "list trash", sqlstore.ScanTrashed, listTrashed, ns, q.After, limit)
}

func (t *tx) DeleteTrashed(ns string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res, err := t.exec(deleteTrashed, ns, encodeStrings(ids))
	if err != nil {
		return 0, fmt.Errorf("delete trashed: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (t *tx) EmptyTrash(ns string, before time.Time) (int, error) {
	var (
		res sql.Result
		err error
	)
	if before.IsZero() {
		res, err = t.exec(emptyAllTrash, ns)
	} else {
		res, err = t.exec(emptyTrash, ns, before.UnixNano())
	}
	if err != nil {
		return 0, fmt.Errorf("empty trash: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
