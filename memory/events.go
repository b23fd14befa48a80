package memory

import "github.com/amem-dev/amem"

// recordEvent queues kind for n in tx.
func (m *Memory) recordEvent(tx amem.Tx, n amem.Note, kind amem.EventKind) error {
	return tx.RecordEvent(amem.Event{Namespace: n.Namespace, NoteID: n.ID, Version: n.Version, Kind: kind,
		At: m.opts.Now().UTC()})
}
