// Package sqlite is an amem.Store in one SQLite file: the embedded store,
// for a CLI, a desktop agent or a single server.
//
//	s, err := sqlite.Open(ctx, "/var/lib/amem/amem.db", nil)
//	if err != nil {
//		return err
//	}
//	defer s.Close()
//	mem, err := memory.Open(ctx, s, opts)
//
// # Driver
//
// It uses modernc.org/sqlite, SQLite translated to Go, rather than
// github.com/mattn/go-sqlite3, which links SQLite's C through cgo. With
// no cgo, amem builds with a plain `go build` for every GOOS/GOARCH, cross-
// compiles, and needs no C toolchain (mattn's first build took 54s of gcc
// here). The price, measured on a 2-vCPU AMD EPYC VM (ext4, shared with
// other builds, so noisy), median of 3 interleaved runs, December 2026,
// schema as here, 10,000 notes with 384-dimension embeddings:
//
//	                                         modernc      mattn
//	insert, one transaction each (FULL sync) 1,930/s      1,980/s   fsync-bound: equal
//	one SELECT of a note row with its vector 29µs         22µs      1.3x
//	FTS5 top 10, 3 common words (~40% hit)   31ms         16ms      1.9x
//	FTS5 top 10, selective 2-word query      0.18ms       0.12ms    1.45x
//	scan of all 10,000 vectors               28ms         26ms      equal
//
// Writes, which wait on the disk, and vector scans, which are memory
// copies, cost the same; CPU-bound SQL runs 1.3-1.9x slower in translated
// C. Against the model calls around every amem write (hundreds of
// milliseconds) and the vector search itself, that is noise, while cgo
// would cost every user of the library a C toolchain. (Full-text search
// has since moved out of SQLite into each process, so the FTS5 rows are
// history.)
//
// # Durability
//
// The database is in WAL mode with synchronous=FULL: each commit syncs the
// log, so a write that Update acknowledged survives a process crash and a
// power loss. synchronous=NORMAL, the usual WAL setting, syncs only at
// checkpoints and may lose the last commits to a power loss; it would
// raise one-note transactions from about 1,900/s to 3,000/s here, a gain
// that batching (many notes in one Update) gives without the risk. A test
// kills a writing child process with SIGKILL and checks that every
// acknowledged note is there after recovery.
//
// # Concurrency
//
// A Store is safe for concurrent use; a Tx is not, and is valid only
// inside the fn it was given to. Update transactions run on one
// connection, one at a time, and start with BEGIN IMMEDIATE; View
// transactions run on a pool of read-only connections (Options.ReadConns)
// and, WAL mode, never wait for a writer nor block it. Measured with 8
// goroutines each committing 250 read-then-write transactions:
//
//	1 write connection, BEGIN IMMEDIATE    1,860-2,600 tx/s  max latency 21-33ms
//	4 write connections, BEGIN IMMEDIATE   1,880-2,110 tx/s  max latency 840-940ms
//	4 write connections, BEGIN (deferred)  1,790-1,870 of 2,000 transactions failed
//
// SQLite has one writer at a time whatever the pool, so more write
// connections add no throughput: the waiting ones poll SQLite's busy
// handler (sleeps of 1-100ms), which starves some writers for most of a
// second and, under load, fails them with SQLITE_BUSY when busy_timeout
// runs out, where one connection queues them in Go, where the context can
// cancel the wait. Deferred transactions that read before writing fail at
// once (SQLITE_BUSY, busy handler bypassed) when two try to upgrade to
// writing. Another process writing the same file waits up to
// Options.BusyTimeout.
//
// # Schema
//
// Migrations are numbered and applied at Open in one transaction, recorded
// in schema_migrations; a database from a newer version is refused
// (ErrSchemaTooNew). Times are INTEGER unix nanoseconds, read back in
// UTC, with NULL for the zero time, so only times between the years 1678
// and 2261 can be stored (others are amem.ErrInvalid). Embeddings are
// little-endian float32 BLOBs; keywords, tags and metadata JSON text.
// There is no full-text index in the file (migration 5 dropped the FTS5
// table the first versions kept): each process indexes a namespace's text
// itself (package lexindex), following the change feed, as it does its
// vectors.
//
// # Damage and health
//
// Open walks every table and index b-tree (walkBtrees: 20-50 ms for
// 10,000 notes) and refuses a damaged file with ErrDamaged, naming what
// is damaged and 'amem check'. Check verifies everything, SQLite's
// integrity check, history, links, the change feed and namespaces,
// without changing the file, and reads files Open refuses.
//
// Store.Health (amem.HealthChecker) says whether the database can take
// writes: a small write committed to disk at most every
// Options.HealthInterval, and every transaction's failure for a full
// disk, a read-only or unwritable file or a damaged page.
package sqlite
