package amem

import "context"

// HealthChecker is an optional Store ability, found by type assertion:
// whether the store can take writes now. A store that answers reads can
// still refuse every write (a full disk, a read-only file), and a server
// that reports itself ready then fails each write; Memory.Health asks a
// store with this ability.
type HealthChecker interface {
	// Health returns nil when a write would succeed now, else an error
	// in which errors.As finds a *HealthError when the store knows why.
	// It is called often (readiness probes) and must be cheap: a store
	// may answer from a recent verdict.
	Health(ctx context.Context) error
}

// HealthError is why a store cannot take writes. Reason is short and
// plain, and names no file, query or key, so that it can be shown to
// anyone (a public /readyz): "disk full", "database is read-only". Err is
// the cause, for logs.
type HealthError struct {
	Reason string
	Err    error
}

func (e *HealthError) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + ": " + e.Err.Error()
}

func (e *HealthError) Unwrap() error { return e.Err }
