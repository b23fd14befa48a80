package memory

import (
	"context"

	"github.com/amem-dev/amem"
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
