package amem

import "time"

// Trashed is a deleted note kept in its namespace's trash: the note as it
// was when deleted (its embedding and its links, both ways, included) and
// its history, so that Memory can bring it back whole.
type Trashed struct {
	Note Note
	// Versions is the note's history, oldest first; nil in a listing.
	Versions  []Version
	DeletedAt time.Time
}

// TrashQuery pages through a namespace's trash in ID order: entries with
// ID > After, at most Limit of them.
type TrashQuery struct {
	After string
	Limit int
}

// Trasher is a Tx's optional ability to keep deleted notes for a while,
// found by type assertion like EventRecorder. Memory.Delete moves a note
// into it (PutTrashed, then DeleteNote, in one transaction), so for
// search and the indexes a trashed note is gone: the change feed records
// its removal as for any deletion. A Tx without it keeps no trash:
// Memory.Delete deletes for good, the trash lists nothing and restores
// nothing (ErrNotFound).
//
// The trash holds what it was given; it never looks at the notes table.
// Its writes take part in the namespace's write order as NoteWriter's do
// (on PostgreSQL they lock the feed row first), so a transaction that
// writes the trash before reading a note reads the state it then deletes
// or replaces.
type Trasher interface {
	// PutTrashed keeps t in the trash of t.Note.Namespace, replacing an
	// entry with the same ID.
	PutTrashed(t Trashed) error
	// TrashedNote returns one entry with its embedding and versions;
	// ErrNotFound if the namespace's trash has no such note.
	TrashedNote(ns, id string) (Trashed, error)
	// ListTrashed pages through a namespace's trash in ID order, without
	// embeddings or versions.
	ListTrashed(ns string, q TrashQuery) ([]Trashed, error)
	// DeleteTrashed removes the entries with the given IDs for good and
	// returns how many there were; IDs not in the trash are skipped.
	DeleteTrashed(ns string, ids []string) (int, error)
	// EmptyTrash removes the namespace's entries deleted before before,
	// or every entry if before is zero, and returns how many.
	EmptyTrash(ns string, before time.Time) (int, error)
}
