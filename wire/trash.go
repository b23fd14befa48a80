package wire

import (
	"time"

	"github.com/amem-dev/amem"
)

// Trashed is a deleted note in its namespace's trash.
type Trashed struct {
	Note      Note      `json:"note" jsonschema:"the note as it was when deleted, with its links"`
	DeletedAt time.Time `json:"deleted_at" jsonschema:"when it was deleted (RFC 3339)"`
	ExpiresAt time.Time `json:"expires_at" jsonschema:"when it will be deleted for good unless restored (RFC 3339)"`
}

// TrashedOf is t as clients see it, kept for retention after deletion.
func TrashedOf(t amem.Trashed, retention time.Duration) Trashed {
	return Trashed{Note: NoteOf(t.Note), DeletedAt: t.DeletedAt, ExpiresAt: t.DeletedAt.Add(retention)}
}

// TrashPage is a page of a namespace's trash.
type TrashPage struct {
	Notes []Trashed `json:"notes" jsonschema:"the trashed notes, in ID (creation) order"`
	// Next is the After value of the next page; empty on the last page.
	Next string `json:"next,omitempty" jsonschema:"pass as after for the next page; absent on the last page"`
}

// Purged answers a purge of the trash.
type Purged struct {
	Purged int `json:"purged" jsonschema:"how many notes were deleted for good"`
}
