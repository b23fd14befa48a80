package postgres

import (
	"errors"
	"fmt"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var _ amem.Trasher = (*tx)(nil)

// migrationTrash is package sqlite's of the same name: deleted notes kept
// apart from live ones.
//
// Lock order: every trash write locks the namespace's feed row first
// (lockFeed), as every write of notes does, so trash and feed locks never
// cross, and Memory, by writing the trash first in a transaction, reads
// the note it trashes after taking the lock: no change to it can commit
// between that read and its deletion (READ COMMITTED reads the latest
// committed state at each statement).
const migrationTrash = `
CREATE TABLE trash (
	ns         text COLLATE "C" NOT NULL,
	id         text COLLATE "C" NOT NULL,
	deleted_at bigint NOT NULL,
	note       text NOT NULL,
	embedding  bytea,
	versions   text NOT NULL,
	PRIMARY KEY (ns, id)
);
CREATE INDEX trash_deleted ON trash (ns, deleted_at);
`

const (
	upsertTrash = `INSERT INTO trash (ns, id, deleted_at, note, embedding, versions) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (ns, id) DO UPDATE SET deleted_at = excluded.deleted_at, note = excluded.note,
	embedding = excluded.embedding, versions = excluded.versions`
	selectTrashed = `SELECT deleted_at, note, embedding, versions FROM trash WHERE ns = $1 AND id = $2`
	listTrashed   = `SELECT deleted_at, note, NULL::bytea, '[]' FROM trash WHERE ns = $1 AND id > $2 ORDER BY id LIMIT $3`
	deleteTrashed = `DELETE FROM trash WHERE ns = $1 AND id = ANY($2)`
	emptyTrash    = `DELETE FROM trash WHERE ns = $1 AND deleted_at < $2`
	emptyAllTrash = `DELETE FROM trash WHERE ns = $1`
)

func (t *tx) PutTrashed(tr amem.Trashed) error {
	if err := t.notWritable("put trashed"); err != nil {
		return err
	}
	if err := t.lockFeed(tr.Note.Namespace); err != nil {
		return err
	}
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
	if t.ended {
		return amem.Trashed{}, errTxDone
	}
	tr, err := sqlstore.ScanTrashed(t.tx.QueryRow(t.ctx, selectTrashed, ns, id))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = sqlstore.NotFound(ns, id)
	case err != nil:
		err = mapError(err)
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
	if err := t.notWritable("delete trashed"); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, nil
	}
	if err := t.lockFeed(ns); err != nil {
		return 0, err
	}
	tag, err := t.exec(deleteTrashed, ns, ids)
	if err != nil {
		return 0, fmt.Errorf("delete trashed: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

func (t *tx) EmptyTrash(ns string, before time.Time) (int, error) {
	if err := t.notWritable("empty trash"); err != nil {
		return 0, err
	}
	if err := t.lockFeed(ns); err != nil {
		return 0, err
	}
	var (
		tag pgconn.CommandTag
		err error
	)
	if before.IsZero() {
		tag, err = t.exec(emptyAllTrash, ns)
	} else {
		tag, err = t.exec(emptyTrash, ns, before.UnixNano())
	}
	if err != nil {
		return 0, fmt.Errorf("empty trash: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
