package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// Options configure Open. A nil *Options, like every zero field, means the
// documented default. Settings in the URL that pgx knows (pool_max_conns
// and the like) are overridden by the fields set here.
type Options struct {
	// MaxConns bounds the connections the Store opens. Every running
	// transaction holds one, so it bounds concurrent Update and View
	// calls too; more wait for a free connection. Several instances on
	// one server must stay together under its max_connections (100 by
	// default, some reserved): N instances × MaxConns. Default 10, which
	// lets 8 instances share a default server.
	MaxConns int
	// MinConns is how many connections the pool keeps open when idle.
	// Default 1, so that the first request after a quiet spell does not
	// pay for a connection (a TCP and authentication round trip).
	MinConns int
	// MaxConnLifetime closes a connection this long after it opened, so
	// that connections spread again over a server's replicas or a
	// proxy's backends. Default 1h.
	MaxConnLifetime time.Duration
	// MaxConnIdleTime closes a connection idle this long (down to
	// MinConns). Default 30m.
	MaxConnIdleTime time.Duration
	// ConnectTimeout bounds the opening of one connection, when the URL
	// has no connect_timeout. Default 10s.
	ConnectTimeout time.Duration
	// HealthInterval is how long Health trusts its last verdict before
	// probing the server again. Default 5s.
	HealthInterval time.Duration
}

// Defaults of Options.
const (
	DefaultMaxConns        = 10
	DefaultMinConns        = 1
	DefaultMaxConnLifetime = time.Hour
	DefaultMaxConnIdleTime = 30 * time.Minute
	DefaultConnectTimeout  = 10 * time.Second
	DefaultHealthInterval  = 5 * time.Second
)

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.MaxConns <= 0 {
		out.MaxConns = DefaultMaxConns
	}
	if out.MinConns <= 0 {
		out.MinConns = DefaultMinConns
	}
	out.MinConns = min(out.MinConns, out.MaxConns)
	if out.MaxConnLifetime <= 0 {
		out.MaxConnLifetime = DefaultMaxConnLifetime
	}
	if out.MaxConnIdleTime <= 0 {
		out.MaxConnIdleTime = DefaultMaxConnIdleTime
	}
	if out.ConnectTimeout <= 0 {
		out.ConnectTimeout = DefaultConnectTimeout
	}
	if out.HealthInterval <= 0 {
		out.HealthInterval = DefaultHealthInterval
	}
	return out
}

// Store is an amem.Store in a PostgreSQL database, shared by any number
// of processes. It is safe for concurrent use; each Tx it hands to fn is
// not, and is valid only until fn returns.
type Store struct {
	pool *pgxpool.Pool
	host string // for messages: the URL without credentials

	gate   sqlstore.Gate // running transactions, which Close waits for
	health sqlstore.Health
}

var _ amem.Store = (*Store)(nil)

// Open connects to the database at url (postgres://user@host:port/db?...,
// or a key=value connection string; see pgx's ParseConfig), checks that
// it answers and brings its schema up to date. A database migrated by a
// newer version of this package is refused with ErrSchemaTooNew. The
// database must exist; amem creates only its tables, in the schema the
// connection's search_path names first (public by default).
func Open(ctx context.Context, url string, opts *Options) (*Store, error) {
	o := opts.withDefaults()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message can quote the URL, password included.
		return nil, fmt.Errorf("open postgres: %w: cannot parse the connection URL %s", amem.ErrInvalid, Redact(url))
	}
	cfg.MaxConns, cfg.MinConns = int32(o.MaxConns), int32(o.MinConns)
	cfg.MaxConnLifetime, cfg.MaxConnIdleTime = o.MaxConnLifetime, o.MaxConnIdleTime
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = o.ConnectTimeout
	}
	s := &Store{host: fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)}
	s.health.Every = o.HealthInterval
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", s.host, err)
	}
	if err := s.pool.Ping(ctx); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", s.host, err)
	}
	if err := migrate(ctx, s.pool); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", s.host, err)
	}
	return s, nil
}

// Redact returns a connection URL with its password replaced by "xxxxx",
// for messages and logs; text that does not parse as a URL is returned
// as "(unparsable URL)".
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Close waits for running transactions to end, then closes every
// connection. Later calls of Update and View return amem.ErrClosed;
// closing again returns nil.
func (s *Store) Close() error {
	if !s.gate.Close() {
		return nil
	}
	s.pool.Close()
	return nil
}

// Update runs fn in a READ COMMITTED transaction, committed if fn returns
// nil and rolled back if it returns an error (returned as is) or panics
// (the panic goes on).
//
// READ COMMITTED, not REPEATABLE READ or SERIALIZABLE, because the rules
// that make concurrent writers safe are row locks and conditions, which
// READ COMMITTED re-checks against the latest committed row: the feed
// row of a namespace, locked by every writer of its notes before any
// note row (see lockFeed), serialises them until commit, so a writer
// reads what the last one committed; UpdateNote's version condition and
// the claim conditions are evaluated on the row as it is when the lock is
// granted. Under REPEATABLE READ, each writer that queued for a feed row
// would fail with a serialisation error instead of going next.
func (s *Store) Update(ctx context.Context, fn func(amem.Tx) error) error {
	return s.transact(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, fn)
}

// View runs fn in a REPEATABLE READ, READ ONLY transaction: one snapshot
// of the database, taken at its first statement. Writes fail.
func (s *Store) View(ctx context.Context, fn func(amem.Tx) error) error {
	return s.transact(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// transact is the one transaction helper: every Update and View goes
// through it.
func (s *Store) transact(ctx context.Context, opts pgx.TxOptions, fn func(amem.Tx) error) (err error) {
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	defer func() { err = s.observe(err) }()
	if err := ctx.Err(); err != nil {
		return err
	}
	pgTx, err := s.pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", mapError(err))
	}
	done := false
	t := &tx{ctx: ctx, tx: pgTx, write: opts.AccessMode != pgx.ReadOnly}
	defer func() {
		t.ended = true
		if !done { // fn failed or panicked: the panic, if any, goes on
			// Not under ctx: a canceled ctx would make pgx drop the
			// connection (which rolls back too, but costs a reconnect).
			// Bounded, for a server that stopped answering.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
			_ = pgTx.Rollback(rctx)
			cancel()
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	done = true
	if err := pgTx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", mapError(err))
	}
	return nil
}

// rollbackTimeout bounds a rollback; past it pgx closes the connection,
// and the server rolls back when it sees it gone.
const rollbackTimeout = 5 * time.Second

// errTxDone is the error of a Tx method called after fn returned.
var errTxDone = errors.New("transaction used after its function returned")
