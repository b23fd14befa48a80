package amem

// recordEvent queues kind for n in tx.
func (m *Memory) recordEvent(tx Tx, n Note, kind EventKind) error {
	return tx.RecordEvent(Event{Namespace: n.Namespace, NoteID: n.ID, Version: n.Version, Kind: kind,
		At: m.opts.Now().UTC()})
}
