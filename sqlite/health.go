package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/amem-dev/amem"
)

var _ amem.HealthChecker = (*Store)(nil)

// DefaultHealthInterval is Options.HealthInterval's default.
const DefaultHealthInterval = 5 * time.Second

// probeWait bounds how long a probe waits for the write connection. A
// write in progress (a long import) says nothing about the disk, and a
// readiness check must answer within its client's timeout (Kubernetes: 1s
// by default), so the probe then keeps the last verdict: the running
// write, if it fails, reports the fault itself.
const probeWait = 500 * time.Millisecond

// Reasons, as amem.HealthError shows them to anyone.
const (
	reasonFull     = "disk full"
	reasonReadOnly = "database is read-only"
	reasonIO       = "disk I/O error"
	reasonDamaged  = "database file is damaged; run amem check"
	reasonLocked   = "database is locked by another process"
	reasonNoWrite  = "database cannot take writes"
)

var errWriterBusy = errors.New("the write connection stayed busy")

// Health reports whether the database can take writes now; it implements
// amem.HealthChecker. The verdict comes from two sources:
//
//   - a probe: a write transaction committed to disk (see probe), run
//     when the verdict is older than Options.HealthInterval, so that
//     frequent readiness checks cost one small synced write per interval;
//   - every transaction: a write failing because the disk is full, the
//     database read-only or its files unwritable makes the store
//     unhealthy at once, until a probe succeeds (no sooner than an
//     interval later, so that a small probe squeezing into the last free
//     space does not flip the verdict back at once).
//
// A damaged page, met by any transaction or probe, makes the store
// unhealthy until the process ends: damage does not heal.
func (s *Store) Health(ctx context.Context) error {
	return s.health.Check(func() error { return s.probeHealth(ctx) })
}

// probeHealth probes and decides the verdict from its outcome.
func (s *Store) probeHealth(ctx context.Context) error {
	pctx, cancel := context.WithTimeoutCause(ctx, probeWait, errWriterBusy)
	defer cancel()
	err := s.probe(pctx)
	switch {
	case err == nil:
		s.health.Set(nil)
		return nil
	case errors.Is(err, amem.ErrClosed):
		return err
	case ctx.Err() != nil: // the caller gave up: no verdict
		return ctx.Err()
	case errors.Is(context.Cause(pctx), errWriterBusy):
		s.health.Renew()
		err, _ := s.health.Verdict()
		return err
	}
	if s.reopenDue() && s.stuckReadOnly(err) && s.reopenWrite(ctx) {
		return nil // a new write connection committed its probe
	}
	f := s.fault(err)
	if f == nil {
		f = &amem.HealthError{Reason: reasonNoWrite, Err: err}
		if isCode(err, sqlite3.SQLITE_BUSY) || isCode(err, sqlite3.SQLITE_LOCKED) {
			f.Reason = reasonLocked
		}
	}
	s.health.Set(f)
	return f
}

const (
	selectPageCount    = `PRAGMA page_count`
	selectMaxPageCount = `PRAGMA max_page_count`
	selectFreelist     = `PRAGMA freelist_count`
	// The probe's row: version -1 is no migration, and no other
	// transaction ever sees it.
	insertProbe = `INSERT INTO schema_migrations (version, applied_at) VALUES (-1, 0)`
	deleteProbe = `DELETE FROM schema_migrations WHERE version = -1`
)

// probe commits a write transaction that inserts and deletes a row of
// schema_migrations. Rolling back would prove nothing: SQLite writes a
// transaction's pages to the log only at commit. Committed, the unchanged
// page still goes to the log with a sync, so the probe fails where a
// write would: a log that must grow on a full disk (SQLITE_FULL), an
// unwritable log (an I/O error), a read-only connection. Measured on a 2
// MiB tmpfs filled up, the probe failed with SQLITE_FULL as every note
// insert did, and both succeeded once space was freed. Where the log
// already holds free space from before a checkpoint, both the probe and
// small writes succeed on a full file system: the database can still
// take writes, and says so.
//
// A database that may grow no further (PRAGMA max_page_count) fails
// writes that need a new page, which the probe's one page never does, so
// the probe checks for room to grow as well.
func (s *Store) probe(ctx context.Context) error {
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	s.writeMu.RLock()
	defer s.writeMu.RUnlock()
	return probeWith(ctx, s.write.db)
}

// probeWith is probe's transaction, on db.
func probeWith(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("probe: begin: %w", err)
	}
	defer tx.Rollback()
	var pages, limit, free int64
	for q, v := range map[string]*int64{selectPageCount: &pages, selectMaxPageCount: &limit, selectFreelist: &free} {
		if err := tx.QueryRowContext(ctx, q).Scan(v); err != nil {
			return fmt.Errorf("probe: %s: %w", q, err)
		}
	}
	if pages >= limit && free == 0 {
		return &amem.HealthError{Reason: reasonFull,
			Err: fmt.Errorf("the database has reached its size limit of %d pages", limit)}
	}
	for _, q := range []string{insertProbe, deleteProbe} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("probe: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("probe: commit: %w", err)
	}
	return nil
}

// observe updates the health verdict from the error of a transaction:
// write is whether it ran on the write connection. Errors that say
// nothing about the store (a constraint, a cancelled context) are
// ignored, and so are failed reads unless they met damage: a failing read
// can't prove that writes fail, and the next probe looks.
func (s *Store) observe(err error, write bool) {
	if err == nil {
		return
	}
	f := s.fault(err)
	if f == nil || !write && f.Reason != reasonDamaged {
		return
	}
	s.health.Set(f)
}

// fault returns the verdict err implies, or nil if it implies none.
func (s *Store) fault(err error) *amem.HealthError {
	var he *amem.HealthError
	if errors.As(err, &he) {
		return he
	}
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return nil
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return &amem.HealthError{Reason: reasonFull, Err: err}
	case sqlite3.SQLITE_READONLY:
		return &amem.HealthError{Reason: reasonReadOnly, Err: err}
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
		if s.unwritable() {
			return &amem.HealthError{Reason: reasonReadOnly, Err: err}
		}
		return &amem.HealthError{Reason: reasonIO, Err: err}
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return &amem.HealthError{Reason: reasonDamaged, Err: err}
	}
	return nil
}

// unwritable reports whether a file of the database can't be opened for
// writing. SQLite reports a write refused by a read-only file system, an
// immutable file (chattr +i, which binds root too) or permissions only as
// an I/O error; this tells them apart from a failing disk. Opening
// without O_TRUNC or O_CREATE changes nothing.
func (s *Store) unwritable() bool {
	for _, p := range []string{s.path, s.path + "-wal", s.path + "-shm"} {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
			continue
		}
		if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return true
		}
	}
	return false
}

// isCode reports whether err is an SQLite error of the primary result
// code (SQLITE_BUSY), whatever its extended code.
func isCode(err error, code int) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == code
}
