package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// Options configure Open. A nil *Options, like every zero field, means the
// documented default.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock that another
	// process holds on the same database file (another amem process, a
	// backup) before failing with SQLITE_BUSY. Writers of one Store never
	// wait on each other this way: they queue for its one write
	// connection. Default 5s.
	BusyTimeout time.Duration

	// ReadConns is how many View transactions can run at once, each on its
	// own connection; more wait for one to be free. Default
	// max(4, GOMAXPROCS): with 8 goroutines reading on 2 cores, 4
	// connections served point reads in ~50µs each against ~80µs for 1 or
	// 2, and 8 did no better (BenchmarkGetNoteParallel).
	ReadConns int

	// HealthInterval is how long Health trusts its last verdict before
	// probing again with a write (see Store.Health). Default 5s: one
	// small synced write per interval at most, however often a load
	// balancer asks.
	HealthInterval time.Duration
}

// DefaultBusyTimeout is Options.BusyTimeout's default.
const DefaultBusyTimeout = 5 * time.Second

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.BusyTimeout <= 0 {
		out.BusyTimeout = DefaultBusyTimeout
	}
	if out.ReadConns <= 0 {
		out.ReadConns = max(4, runtime.GOMAXPROCS(0))
	}
	if out.HealthInterval <= 0 {
		out.HealthInterval = DefaultHealthInterval
	}
	return out
}

// Store is an amem.Store in one SQLite database file. It is safe for
// concurrent use; each Tx it hands to fn is not, and is valid only until
// fn returns.
type Store struct {
	path string
	opts Options
	// write is one connection: SQLite has one writer at a time. writeMu
	// is held for reading while it is used and for writing while it is
	// replaced (reopen.go): a connection that went read-only stays so
	// after the file is writable again.
	writeMu sync.RWMutex
	write   pool
	read    pool // ReadConns connections, query_only
	// reopened is when the write connection was last reopened or tried.
	reopened atomic.Int64

	gate   sqlstore.Gate // running transactions, which Close waits for
	health sqlstore.Health
}

var _ amem.Store = (*Store)(nil)

// Open opens the database at path, creating it and its parent directory if
// missing, and brings its schema up to date. A database written by a newer
// version of this package, with migrations this one doesn't know, is
// refused with ErrSchemaTooNew; a damaged one (see walkBtrees) with
// ErrDamaged.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	o := opts.withDefaults()
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open sqlite: %w: path %q must name a file", amem.ErrInvalid, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}

	s := &Store{path: abs, opts: o}
	s.health.Every, s.health.Sticky = o.HealthInterval, reasonDamaged
	if err := s.open(ctx, o); err != nil {
		_ = errors.Join(s.read.close(), s.write.close())
		return nil, fmt.Errorf("open sqlite %s: %w", abs, err)
	}
	return s, nil
}

// open opens the write pool, checks the file (walkBtrees), migrates, then
// opens the read pool.
func (s *Store) open(ctx context.Context, o Options) error {
	var err error
	if s.write.db, err = openPool(dsn(s.path, o, false), 1); err != nil {
		return err
	}
	if err := checkWAL(ctx, s.write.db); err != nil {
		if isCode(err, sqlite3.SQLITE_NOTADB) || isCode(err, sqlite3.SQLITE_CORRUPT) {
			return damaged(s.path, "it is not an SQLite database, or its first page is damaged", err)
		}
		if isCode(err, sqlite3.SQLITE_CANTOPEN) && dirUnwritable(filepath.Dir(s.path)) {
			return &amem.HealthError{Reason: reasonReadOnly, Err: fmt.Errorf("directory %s is not writable (a read-only file system?): amem writes the database and, beside it, its -wal and -shm files; 'amem check' reads it where it is (%w)",
				filepath.Dir(s.path), err)}
		}
		return err
	}
	// Before migrating: a migration writing into a damaged file could
	// spread the damage.
	if err := walkBtrees(ctx, s.write.db, s.path); err != nil {
		return err
	}
	if err := migrate(ctx, s.write.db); err != nil {
		return err
	}
	if err := s.write.prepare(ctx, readQueries, writeOnlyQueries); err != nil {
		return err
	}
	if s.read.db, err = openPool(dsn(s.path, o, true), o.ReadConns); err != nil {
		return err
	}
	return s.read.prepare(ctx, readQueries)
}

// dsn returns the driver's name for the database at path: a file: URI, so
// that any character of the path is escaped, with the pragmas every
// connection runs when it opens.
//
//   - journal_mode=WAL: readers don't block the writer nor it them, and a
//     commit appends to one file. It is stored in the database, so it
//     needs setting only by the writer.
//   - synchronous=FULL: in WAL mode NORMAL syncs the log only at
//     checkpoints, so the last commits before a power loss or kernel crash
//     can vanish although Update returned nil. FULL syncs the log at every
//     commit, so an acknowledged write survives power loss. Measured cost:
//     one-note transactions went from about 3,000/s to 1,900/s (doc.go).
//   - foreign_keys=ON: links and versions cascade with their notes.
//   - busy_timeout: see Options.BusyTimeout.
//   - writer: _txlock=immediate makes every BEGIN take the write lock at
//     once. A deferred write transaction that read first and must upgrade
//     can fail with SQLITE_BUSY at once, busy_timeout notwithstanding, when
//     another process writes meanwhile.
//   - readers: query_only, so View can't write; BEGIN stays deferred.
func dsn(path string, o Options, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(o.BusyTimeout.Milliseconds(), 10))
	if readOnly {
		q.Set("_query_only", "1")
	} else {
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "FULL")
		q.Set("_foreign_keys", "1")
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	if !strings.HasPrefix(u.Path, "/") { // a Windows drive letter
		u.Path = "/" + u.Path
	}
	return u.String()
}

// openPool opens a pool of at most n connections that stay open, so each
// keeps its page cache and prepared statements.
func openPool(name string, n int) (*sql.DB, error) {
	c, err := sqlite.NewConnector(name)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

const selectJournalMode = `PRAGMA journal_mode`

// checkWAL makes sure the database is in WAL mode: SQLite silently keeps
// the rollback journal where WAL is unavailable (some network file
// systems), and then readers and the writer would block each other.
func checkWAL(ctx context.Context, db *sql.DB) error {
	var mode string
	if err := db.QueryRowContext(ctx, selectJournalMode).Scan(&mode); err != nil {
		return fmt.Errorf("journal mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, want wal (is the file on a local file system?)", mode)
	}
	return nil
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close waits for running transactions to end, then closes the database.
// Later calls of Update and View return amem.ErrClosed; closing again
// returns nil. Calling Close from inside fn would wait forever.
func (s *Store) Close() error {
	if !s.gate.Close() {
		return nil
	}
	// Closing the last connection checkpoints the log into the database
	// and removes the -wal file; the readers go first so it is the writer.
	return errors.Join(s.read.close(), s.write.close())
}

// Update runs fn in a write transaction, committed if fn returns nil and
// rolled back if it returns an error (returned as is) or panics (the panic
// goes on). Write transactions run one at a time.
func (s *Store) Update(ctx context.Context, fn func(amem.Tx) error) error {
	s.writeMu.RLock()
	err := s.transact(ctx, &s.write, fn)
	s.writeMu.RUnlock()
	if err != nil && s.reopenDue() && s.stuckReadOnly(err) {
		s.reopenWrite(ctx)
	}
	return err
}

// View runs fn in a read-only transaction: a consistent snapshot of the
// database as of the transaction's first read. Writes fail.
func (s *Store) View(ctx context.Context, fn func(amem.Tx) error) error {
	return s.transact(ctx, &s.read, fn)
}

// transact is the one transaction helper: every Update and View goes
// through it. Its errors feed the health verdict (see Health).
func (s *Store) transact(ctx context.Context, p *pool, fn func(amem.Tx) error) (err error) {
	defer func() { s.observe(err, p == &s.write) }()
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()

	sqlTx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	done := false
	defer func() {
		if !done { // fn failed or panicked: the panic, if any, goes on
			_ = sqlTx.Rollback()
		}
	}()
	if err := fn(&tx{ctx: ctx, tx: sqlTx, pool: p.stmts}); err != nil {
		return err
	}
	done = true
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
