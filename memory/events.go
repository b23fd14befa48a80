package memory

import "github.com/amem-dev/amem"

// recordEvent queues kind for n in tx; a store without the event
// outbox (amem.EventRecorder) has no webhooks to queue it for.
func (m *Memory) recordEvent(tx amem.Tx, n amem.Note, kind amem.EventKind) error {
	r, ok := tx.(amem.EventRecorder)
	if !ok {
		return nil
	}
	return r.RecordEvent(amem.Event{Namespace: n.Namespace, NoteID: n.ID, Version: n.Version, Kind: kind,
		At: m.opts.Now().UTC()})
}
