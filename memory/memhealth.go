package memory

import (
	"context"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/kernel"
)

// Health reports whether the memory can take requests: the store answers
// a read and, if it is a HealthChecker, says it can take writes. The error
// holds a *HealthError when the store knows what is wrong.
func (m *Memory) Health(ctx context.Context) error {
	if err := m.alive(); err != nil {
		return err
	}
	if h, ok := m.store.(amem.HealthChecker); ok {
		if err := h.Health(ctx); err != nil {
			return err
		}
	}
	return m.view(ctx, func(tx amem.Tx) error {
		_, err := tx.Namespaces()
		return err
	})
}

// IndexCounters counts the approximate indexes the memory's index cache
// built, and the saved indexes it read from Options.Indexes.IndexDir
// instead of building them, since Open: for monitoring (the server's
// /metrics).
func (m *Memory) IndexCounters() kernel.Counters { return m.k.Counters() }
