package sqlstore

import (
	"fmt"
	"time"

	"github.com/amem-dev/amem"
)

// ListNotes limits, the same for both stores.
const (
	// DefaultListLimit is the page size of ListNotes when ListQuery.Limit
	// is 0.
	DefaultListLimit = 100
	// MaxListLimit caps ListQuery.Limit: a larger limit returns this many.
	MaxListLimit = 10000
)

// ListLimit returns the page size for ListQuery.Limit: DefaultListLimit
// for 0, at most MaxListLimit. A negative limit is amem.ErrInvalid.
func ListLimit(limit int) (int, error) {
	switch {
	case limit < 0:
		return 0, fmt.Errorf("list notes: %w: limit %d is negative", amem.ErrInvalid, limit)
	case limit == 0:
		return DefaultListLimit, nil
	case limit > MaxListLimit:
		return MaxListLimit, nil
	}
	return limit, nil
}

// NotFound wraps amem.ErrNotFound with what was looked for.
func NotFound(ns, id string) error {
	return fmt.Errorf("note %s in namespace %s: %w", id, ns, amem.ErrNotFound)
}

// CheckNote is amem.ErrInvalid for a note that can't be stored: one
// without an ID or a namespace.
func CheckNote(n amem.Note) error {
	if n.ID == "" {
		return fmt.Errorf("%w: note has no ID", amem.ErrInvalid)
	}
	if n.Namespace == "" {
		return fmt.Errorf("%w: note %s has no namespace", amem.ErrInvalid, n.ID)
	}
	return nil
}

// NoteTimes encodes n's times with enc, the store's encoding of a
// nullable time column, in the order event time, ingest time, updated
// at, enrichment time, due time. An error names the field.
func NoteTimes[T any](n amem.Note, enc func(time.Time) (T, error)) ([5]T, error) {
	var out [5]T
	for i, f := range [5]struct {
		name string
		t    time.Time
	}{
		{"event time", n.EventTime}, {"ingest time", n.IngestTime},
		{"updated at", n.UpdatedAt}, {"enrichment time", n.Enrichment.At},
		{"due time", n.Enrichment.DueAt},
	} {
		v, err := enc(f.t)
		if err != nil {
			return out, fmt.Errorf("note %s: %s: %w", n.ID, f.name, err)
		}
		out[i] = v
	}
	return out, nil
}

// FinishNote completes a note whose plain columns were scanned: its
// metadata from meta, its embedding from emb (decoded into vec's array
// when it is large enough, so that a reader using each note briefly
// reuses one buffer), and empty links for the caller to fill. emb may be
// the driver's own buffer: it is decoded at once, not kept.
func FinishNote[M ~string | ~[]byte](n *amem.Note, meta M, emb []byte, vec []float32) error {
	var err error
	if n.Metadata, err = DecodeMetadata(meta); err != nil {
		return fmt.Errorf("note %s: metadata: %w", n.ID, err)
	}
	if len(emb) > 0 {
		if n.Embedding, err = DecodeVector(vec, emb); err != nil {
			return fmt.Errorf("note %s: %w", n.ID, err)
		}
	}
	n.Links = []amem.Link{}
	return nil
}
