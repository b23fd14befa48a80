package memory

import "github.com/amem-dev/amem"

// recordEvent queues kind for n in tx, at the memory's clock
// (amem.RecordEvent).
func (m *Memory) recordEvent(tx amem.Tx, n amem.Note, kind amem.EventKind) error {
	return amem.RecordEvent(tx, n, kind, m.opts.Now())
}
