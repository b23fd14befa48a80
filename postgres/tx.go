package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// tx is an amem.Tx over one pgx transaction. amem.Tx's methods take no
// context, so tx carries the one given to Update or View; it is never
// kept past fn.
//
// A statement that fails aborts a PostgreSQL transaction: every later
// statement fails too. Yet amem.Tx promises that ErrNotFound, ErrConflict
// and ErrBusy leave the transaction usable (Memory skips a link to a
// deleted note and goes on). So no method reaches those outcomes through
// a failing statement: they are rows not found, rows not changed, or
// ON CONFLICT DO NOTHING, and inputs the server would refuse (a NUL byte)
// are refused before they are sent.
type tx struct {
	ctx   context.Context
	tx    pgx.Tx
	write bool
	ended bool             // fn returned
	seqs  map[string]int64 // change numbers taken, by namespace
	locks map[string]bool  // feed rows locked, by namespace
}

// Every ability, the optional ones included.
var _ interface {
	amem.Tx
	amem.EventRecorder
	amem.UsageKeeper
} = (*tx)(nil)

func (t *tx) exec(query string, args ...any) (pgconn.CommandTag, error) {
	if t.ended {
		return pgconn.CommandTag{}, errTxDone
	}
	tag, err := t.tx.Exec(t.ctx, query, args...)
	return tag, mapError(err)
}

func (t *tx) query(query string, args ...any) (pgx.Rows, error) {
	if t.ended {
		return nil, errTxDone
	}
	rows, err := t.tx.Query(t.ctx, query, args...)
	return rows, mapError(err)
}

// rows runs query for package sqlstore's shared readers, its errors
// (scans' too) turned into amem errors.
func (t *tx) rows(query string, args ...any) (sqlstore.Rows, func(), error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, nil, err
	}
	return mappedScan{mapped{rows}}, rows.Close, nil
}

// mappedScan turns a scan's driver errors into amem errors too.
type mappedScan struct{ mapped }

func (r mappedScan) Scan(dest ...any) error { return mapError(r.mapped.Scan(dest...)) }

// queryRow scans the first row of query into dest: pgx.ErrNoRows if
// there is none.
func (t *tx) queryRow(query string, args []any, dest ...any) error {
	if t.ended {
		return errTxDone
	}
	return mapError(t.tx.QueryRow(t.ctx, query, args...).Scan(dest...))
}

// notWritable refuses a write in a View before it reaches the server,
// where it would fail the statement and with it the transaction.
func (t *tx) notWritable(what string) error {
	if !t.write {
		return fmt.Errorf("%s: %w", what, errReadOnly)
	}
	return nil
}

var errReadOnly = errors.New("a View is read-only")

// SQLSTATE codes mapped to amem errors.
const (
	codeUniqueViolation      = "23505"
	codeForeignKeyViolation  = "23503"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
	codeInvalidText          = "22021" // character_not_in_repertoire: a NUL byte
	codeUntranslatable       = "22P05" // a \u0000 in jsonb
)

// mapError makes the errors callers act on recognisable: a transaction
// that lost a race (a serialisation failure, a deadlock) is
// amem.ErrConflict, which Memory answers by computing its change again;
// text the server refuses is amem.ErrInvalid.
func mapError(err error) error {
	var pe *pgconn.PgError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case codeSerializationFailure, codeDeadlockDetected:
		return fmt.Errorf("%w: %w", amem.ErrConflict, err)
	case codeInvalidText, codeUntranslatable:
		return fmt.Errorf("%w: %w", amem.ErrInvalid, err)
	}
	return err
}

// mapped is rows whose Err goes through mapError, for the readers of
// package sqlstore.
type mapped struct{ pgx.Rows }

func (r mapped) Err() error { return mapError(r.Rows.Err()) }

// isCode reports whether err is a PostgreSQL error with that SQLSTATE.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

const selectNamespace = `SELECT name, embedder, dims, created_at FROM namespaces WHERE name = $1`

func (t *tx) Namespace(ns string) (amem.NamespaceInfo, error) {
	rows, err := t.query(selectNamespace, ns)
	if err != nil {
		return amem.NamespaceInfo{}, fmt.Errorf("namespace %s: %w", ns, err)
	}
	infos, err := collectNamespaces(rows)
	if err != nil {
		return amem.NamespaceInfo{}, fmt.Errorf("namespace %s: %w", ns, err)
	}
	if len(infos) == 0 {
		return amem.NamespaceInfo{}, fmt.Errorf("namespace %s: %w", ns, amem.ErrNotFound)
	}
	return infos[0], nil
}

const upsertNamespace = `INSERT INTO namespaces (name, embedder, dims, created_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (name) DO UPDATE SET
	embedder = excluded.embedder, dims = excluded.dims, created_at = excluded.created_at`

func (t *tx) PutNamespace(info amem.NamespaceInfo) error {
	if err := t.notWritable("put namespace"); err != nil {
		return err
	}
	if err := checkText("namespace", info.Name, info.Embedder); err != nil {
		return fmt.Errorf("put namespace: %w", err)
	}
	return sqlstore.PutNamespace(info, func(args ...any) error {
		_, err := t.exec(upsertNamespace, args...)
		return err
	})
}

const selectNamespaces = `SELECT name, embedder, dims, created_at FROM namespaces ORDER BY name`

// Namespaces returns the namespaces recorded by PutNamespace, by name.
func (t *tx) Namespaces() ([]amem.NamespaceInfo, error) {
	rows, err := t.query(selectNamespaces)
	if err != nil {
		return nil, fmt.Errorf("namespaces: %w", err)
	}
	out, err := collectNamespaces(rows)
	if err != nil {
		return nil, fmt.Errorf("namespaces: %w", err)
	}
	return out, nil
}

func collectNamespaces(rows pgx.Rows) ([]amem.NamespaceInfo, error) {
	defer rows.Close()
	return sqlstore.Collect(mapped{rows}, sqlstore.ScanNamespace)
}

// QueryRowInto and Exec make the transaction a sqlstore.Querier.
func (t *tx) QueryRowInto(query string, args []any, dest ...any) (bool, error) {
	err := t.queryRow(query, args, dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func (t *tx) Exec(query string, args ...any) error {
	_, err := t.exec(query, args...)
	return err
}
