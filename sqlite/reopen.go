package sqlite

import (
	"context"
	"time"
)

// A write connection that met a read-only database (a read-only mount, an
// immutable file) can stay read-only after the file is writable again:
// SQLite opens a file it may not write read-only, and its write-ahead
// index with it. Without a new connection the store never recovered
// short of a restart, while its health probe and every worker failed.
// So a write failing so, or a failed health probe, reopens the write
// connection, at most once per Options.HealthInterval, and swaps the new
// one in once a probe through it commits.

// stuckReadOnly reports whether err is the kind of failure a new write
// connection may cure: read-only, or an I/O error on an unwritable file.
func (s *Store) stuckReadOnly(err error) bool {
	f := s.fault(err)
	return f != nil && (f.Reason == reasonReadOnly || f.Reason == reasonIO)
}

// reopenDue reports whether a HealthInterval has passed since the last
// reopen: callers check it before classifying an error, whose I/O error
// case opens the database's files (unwritable), so that a failing store
// does that once per interval, not per write.
func (s *Store) reopenDue() bool {
	last := s.reopened.Load()
	return last == 0 || time.Since(time.Unix(0, last)) >= s.opts.HealthInterval
}

// reopenWrite opens a new write connection, probes it, and swaps it in if
// the probe commits; it reports whether it did. It tries at most once per
// HealthInterval.
func (s *Store) reopenWrite(ctx context.Context) bool {
	last := s.reopened.Load()
	if !s.reopenDue() || !s.reopened.CompareAndSwap(last, time.Now().UnixNano()) {
		return false
	}
	if err := s.gate.Enter(); err != nil {
		return false
	}
	defer s.gate.Leave()
	var p pool
	var err error
	if p.db, err = openPool(dsn(s.path, s.opts, false), 1); err == nil {
		if err = checkWAL(ctx, p.db); err == nil {
			if err = p.prepare(ctx, readQueries, writeOnlyQueries); err == nil {
				err = probeWith(ctx, p.db)
			}
		}
	}
	if err != nil {
		_ = p.close()
		return false
	}
	s.writeMu.Lock()
	old := s.write
	s.write = p
	s.writeMu.Unlock()
	_ = old.close()
	s.health.Set(nil)
	return true
}
