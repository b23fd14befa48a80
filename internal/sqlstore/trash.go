package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/amem-dev/amem"
)

// TrashValues are the columns of a trash entry, in the order both stores'
// trash tables take them: namespace, ID, deletion time (nanoseconds), the
// note as JSON without its vector, the vector, the versions as JSON. The
// note's JSON is the export format's, which is lossless.
func TrashValues(t amem.Trashed) ([]any, error) {
	n := t.Note
	if err := CheckNote(n); err != nil {
		return nil, err
	}
	at, _, err := UnixNanos(t.DeletedAt)
	if err != nil {
		return nil, fmt.Errorf("trash %s: deleted at: %w", n.ID, err)
	}
	vec := EncodeVector(n.Embedding)
	n.Embedding = nil
	note, err := MarshalJSON(n)
	if err != nil {
		return nil, fmt.Errorf("%w: trash %s: %v", amem.ErrInvalid, n.ID, err)
	}
	vs := t.Versions
	if vs == nil {
		vs = []amem.Version{}
	}
	versions, err := MarshalJSON(vs)
	if err != nil {
		return nil, fmt.Errorf("%w: trash %s: versions: %v", amem.ErrInvalid, n.ID, err)
	}
	return []any{n.Namespace, n.ID, at, note, vec, versions}, nil
}

// ScanTrashed reads a row of (deletion time, note JSON, embedding,
// versions JSON), the columns of a trash entry read whole; a listing
// selects NULL and '[]' for the last two.
func ScanTrashed(s Scanner) (amem.Trashed, error) {
	var (
		at             int64
		note, versions string
		emb            []byte
		t              amem.Trashed
	)
	if err := s.Scan(&at, &note, &emb, &versions); err != nil {
		return t, err
	}
	t.DeletedAt = time.Unix(0, at).UTC()
	if err := json.Unmarshal([]byte(note), &t.Note); err != nil {
		return t, fmt.Errorf("trashed note: %w", err)
	}
	n := &t.Note
	if len(emb) > 0 {
		var err error
		if n.Embedding, err = DecodeVector(nil, emb); err != nil {
			return t, fmt.Errorf("trashed note %s: %w", n.ID, err)
		}
	}
	normalizeNote(n)
	if err := json.Unmarshal([]byte(versions), &t.Versions); err != nil {
		return t, fmt.Errorf("trashed note %s: versions: %w", n.ID, err)
	}
	if len(t.Versions) == 0 {
		t.Versions = nil
	}
	for i := range t.Versions {
		normalizeVersion(&t.Versions[i])
		t.Versions[i].CreatedAt = utc(t.Versions[i].CreatedAt)
	}
	return t, nil
}

// normalizeNote gives a note decoded from JSON what a store's reads
// promise: lists never nil, empty metadata nil, times in UTC.
func normalizeNote(n *amem.Note) {
	if n.Keywords == nil {
		n.Keywords = []string{}
	}
	if n.Tags == nil {
		n.Tags = []string{}
	}
	if n.Links == nil {
		n.Links = []amem.Link{}
	}
	if len(n.Metadata) == 0 {
		n.Metadata = nil
	}
	n.EventTime, n.IngestTime, n.UpdatedAt = utc(n.EventTime), utc(n.IngestTime), utc(n.UpdatedAt)
	n.Enrichment.At, n.Enrichment.DueAt = utc(n.Enrichment.At), utc(n.Enrichment.DueAt)
	for i := range n.Links {
		n.Links[i].CreatedAt = utc(n.Links[i].CreatedAt)
	}
}

// utc is t in UTC, the zero time left zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}
