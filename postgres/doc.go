// Package postgres is an amem.Store in a PostgreSQL database, for several
// amem instances sharing one memory: each keeps its search indexes in
// memory and follows the database's per-namespace change feed, so every
// instance answers from every instance's writes.
//
//	s, err := postgres.Open(ctx, "postgres://amem@db.internal/amem", nil)
//	if err != nil {
//		return err
//	}
//	defer s.Close()
//	mem, err := memory.Open(ctx, s, opts)
//
// # Driver
//
// It uses github.com/jackc/pgx/v5 directly, with its pool (pgxpool),
// rather than through database/sql: transactions take their isolation
// and access mode as options, text[] and bytea scan into Go slices (a
// vector's bytes without a copy, pgtype.DriverBytes), statements are
// prepared and cached per connection with no code of ours, and a pool
// connection idle for a second is pinged before use, so a restarted
// server costs at most the transactions that were running.
//
// # Schema
//
// Open applies numbered migrations (migrate.go) in one transaction under
// an advisory lock, so instances starting together apply them once; a
// schema newer than this code is ErrSchemaTooNew. The tables go in the
// first schema of the connection's search_path. Values are encoded as
// package sqlite encodes them (times as int64 nanoseconds, vectors as
// little-endian float32), so both stores return the same notes; text
// holding a NUL byte, which PostgreSQL refuses, is amem.ErrInvalid.
//
// # Concurrency
//
// A Store is safe for concurrent use; a Tx is not, and is valid only
// inside the fn it was given to. Update runs READ COMMITTED, View
// REPEATABLE READ READ ONLY (one snapshot). Writers of one namespace are
// serialised by its row of feeds, which every writing transaction locks
// before any of the namespace's notes (see feed.go): that gives the
// change feed numbers in commit order and rules out deadlocks between
// writers. Writers of different namespaces run in parallel. A
// transaction that loses a race anyway (a deadlock across namespaces)
// fails with amem.ErrConflict, which Memory answers by retrying.
//
// Behind PgBouncer in transaction mode, add default_query_exec_mode=exec
// to the URL: cached prepared statements need session pooling.
package postgres
