package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// tx is an amem.Tx over one database/sql transaction. amem.Tx's methods
// take no context, so tx carries the one given to Update or View, as
// sql.Tx itself does; it is never kept past fn.
type tx struct {
	ctx   context.Context
	tx    *sql.Tx
	pool  map[string]*sql.Stmt // the pool's prepared statements
	stmts map[string]*sql.Stmt // those bound to tx so far
	seqs  map[string]int64     // change numbers taken, by namespace
}

// Every ability, the optional ones included.
var _ interface {
	amem.Tx
	amem.EventRecorder
	amem.UsageKeeper
} = (*tx)(nil)

// stmt returns query's prepared statement bound to the transaction, or nil
// if the pool hasn't prepared it. Each is bound once per transaction:
// Tx.StmtContext keeps what it returns until the end of the transaction,
// which would grow with every statement of a long import otherwise.
func (t *tx) stmt(query string) *sql.Stmt {
	if st, ok := t.stmts[query]; ok {
		return st
	}
	parent, ok := t.pool[query]
	if !ok {
		return nil
	}
	if t.stmts == nil {
		t.stmts = make(map[string]*sql.Stmt)
	}
	st := t.tx.StmtContext(t.ctx, parent)
	t.stmts[query] = st
	return st
}

// exec, query and queryRow run a statement, prepared if the pool has it
// (see stmts.go). A prepared statement must not run again while its rows
// are open: each method reads its rows to the end before the next query.
func (t *tx) exec(query string, args ...any) (sql.Result, error) {
	if st := t.stmt(query); st != nil {
		return st.ExecContext(t.ctx, args...)
	}
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *tx) query(query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(query); st != nil {
		return st.QueryContext(t.ctx, args...)
	}
	return t.tx.QueryContext(t.ctx, query, args...)
}

// rows runs query for package sqlstore's shared readers.
func (t *tx) rows(query string, args ...any) (sqlstore.Rows, func(), error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, nil, err
	}
	return rows, func() { rows.Close() }, nil
}

func (t *tx) queryRow(query string, args ...any) *sql.Row {
	if st := t.stmt(query); st != nil {
		return st.QueryRowContext(t.ctx, args...)
	}
	return t.tx.QueryRowContext(t.ctx, query, args...)
}

// isConstraint reports whether err is the SQLite extended result code
// code, such as SQLITE_CONSTRAINT_UNIQUE.
func isConstraint(err error, code int) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code() == code
}

const selectNamespace = `SELECT name, embedder, dims, created_at FROM namespaces WHERE name = ?`

func (t *tx) Namespace(ns string) (amem.NamespaceInfo, error) {
	info, err := sqlstore.ScanNamespace(t.queryRow(selectNamespace, ns))
	if errors.Is(err, sql.ErrNoRows) {
		return amem.NamespaceInfo{}, fmt.Errorf("namespace %s: %w", ns, amem.ErrNotFound)
	}
	if err != nil {
		return amem.NamespaceInfo{}, fmt.Errorf("namespace %s: %w", ns, err)
	}
	return info, nil
}

const upsertNamespace = `INSERT INTO namespaces (name, embedder, dims, created_at) VALUES (?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET
	embedder = excluded.embedder, dims = excluded.dims, created_at = excluded.created_at`

func (t *tx) PutNamespace(info amem.NamespaceInfo) error {
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
	defer rows.Close()
	out, err := sqlstore.Collect(rows, sqlstore.ScanNamespace)
	if err != nil {
		return nil, fmt.Errorf("namespaces: %w", err)
	}
	return out, nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// SQLITE_CONSTRAINT_* extended result codes the store maps to amem errors.
const (
	constraintUnique     = sqlite3.SQLITE_CONSTRAINT_UNIQUE
	constraintPrimaryKey = sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	constraintForeignKey = sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
)

// QueryRowInto and Exec make the transaction a sqlstore.Querier.
func (t *tx) QueryRowInto(query string, args []any, dest ...any) (bool, error) {
	err := t.queryRow(query, args...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func (t *tx) Exec(query string, args ...any) error {
	_, err := t.exec(query, args...)
	return err
}
