package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/amem-dev/amem"
)

var _ amem.HealthChecker = (*Store)(nil)

// Reasons, as amem.HealthError shows them to anyone: they name no host.
const (
	reasonUnreachable = "database unreachable"
	reasonFull        = "database server out of disk or memory"
	reasonReadOnly    = "database is read-only"
	reasonRestarting  = "database is shutting down or starting"
	reasonNoWrite     = "database cannot take writes"
)

// probeWait bounds a probe: a readiness check must answer within its
// client's timeout (Kubernetes: 1s by default). A server that takes
// longer for one small write is not ready either.
const probeWait = 900 * time.Millisecond

// Health reports whether the database can take writes now; it implements
// amem.HealthChecker. The verdict comes from a probe, a committed
// transaction that inserts and deletes one row (so the server must
// accept a write and write its log), run when the last verdict is older
// than Options.HealthInterval; and from every transaction, whose failure
// for want of the server (connection lost, shutting down, read-only, out
// of disk) makes the store unhealthy at once, until a probe succeeds.
// While PostgreSQL restarts, instances report unhealthy and their
// requests fail; the pool reconnects by itself once it is back.
func (s *Store) Health(ctx context.Context) error {
	return s.health.Check(func() error { return s.probeHealth(ctx) })
}

// probeHealth probes and decides the verdict from its outcome.
func (s *Store) probeHealth(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, probeWait)
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
	}
	f := fault(err)
	if f == nil {
		f = &amem.HealthError{Reason: reasonNoWrite, Err: err}
		if pctx.Err() != nil {
			f.Reason = reasonUnreachable
		}
	}
	s.health.Set(f)
	return f
}

const (
	// The probe's row: version -1 is no migration, and no other
	// transaction ever sees it (it is deleted before commit).
	insertProbe = `INSERT INTO amem_schema_migrations (version, applied_at) VALUES (-1, 0) ON CONFLICT DO NOTHING`
	deleteProbe = `DELETE FROM amem_schema_migrations WHERE version = -1`
)

// probe commits a transaction that writes.
func (s *Store) probe(ctx context.Context) error {
	return s.Update(ctx, func(atx amem.Tx) error {
		t := atx.(*tx)
		for _, q := range []string{insertProbe, deleteProbe} {
			if _, err := t.exec(q); err != nil {
				return err
			}
		}
		return nil
	})
}

// observe makes the store unhealthy at once when a transaction failed for
// want of the server; other errors (a conflict, a canceled context) say
// nothing about it. A lost connection closes the pool's idle ones too:
// what ended one (a server restart, a network cut) most likely ended all,
// and each would otherwise fail one more transaction before the pool
// found out (it pings only connections idle for over a second).
//
// It returns the error to give the caller: such a failure as the
// *amem.HealthError (wrapping err), so that a server can answer "the
// database is unavailable, retry" rather than an internal error.
func (s *Store) observe(err error) error {
	if err == nil {
		return nil
	}
	f := fault(err)
	if f == nil {
		return err
	}
	s.health.Set(f)
	if f.Reason == reasonUnreachable || f.Reason == reasonRestarting {
		s.pool.Reset()
	}
	var he *amem.HealthError
	if errors.As(err, &he) {
		return err
	}
	return f
}

// fault returns the verdict err implies, or nil if it implies none.
func fault(err error) *amem.HealthError {
	var he *amem.HealthError
	if errors.As(err, &he) {
		return he
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "25006": // read_only_sql_transaction: a standby
			return &amem.HealthError{Reason: reasonReadOnly, Err: err}
		case strings.HasPrefix(pe.Code, "53"): // insufficient resources
			return &amem.HealthError{Reason: reasonFull, Err: err}
		case strings.HasPrefix(pe.Code, "57P"): // shutdown, starting, crash recovery
			return &amem.HealthError{Reason: reasonRestarting, Err: err}
		case strings.HasPrefix(pe.Code, "08"): // connection exception
			return &amem.HealthError{Reason: reasonUnreachable, Err: err}
		}
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	var (
		ce *pgconn.ConnectError
		ne net.Error
	)
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &amem.HealthError{Reason: reasonUnreachable, Err: err}
	}
	return nil
}
