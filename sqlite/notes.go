package sqlite

import (
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/amem-dev/amem"
)

// ListNotes limits.
const (
	// DefaultListLimit is the page size of ListNotes when ListQuery.Limit
	// is 0.
	DefaultListLimit = 100
	// MaxListLimit caps ListQuery.Limit: a larger limit returns this many.
	MaxListLimit = 10000
)

// noteColumns are the columns scanNote reads, in its order.
const noteColumns = `id, ns, content, event_time, ingest_time, updated_at, keywords, tags, context,
	metadata, embedding, version, enrich_state, enrich_error, enrich_attempts, enrich_at`

// scanNote reads one row of noteColumns. Links are attached by the caller.
func scanNote(rows *sql.Rows) (amem.Note, error) {
	var (
		n                           amem.Note
		event, ingest, updated, at  sql.NullInt64
		keywords, tags, meta, state string
		emb                         sql.RawBytes // decoded at once, not copied
	)
	err := rows.Scan(&n.ID, &n.Namespace, &n.Content, &event, &ingest, &updated, &keywords, &tags,
		&n.Context, &meta, &emb, &n.Version, &state, &n.Enrichment.Error, &n.Enrichment.Attempts, &at)
	if err != nil {
		return amem.Note{}, err
	}
	n.EventTime, n.IngestTime, n.UpdatedAt = timeOf(event), timeOf(ingest), timeOf(updated)
	n.Enrichment.State, n.Enrichment.At = amem.EnrichState(state), timeOf(at)
	if n.Keywords, err = decodeStrings(keywords); err != nil {
		return amem.Note{}, fmt.Errorf("note %s: keywords: %w", n.ID, err)
	}
	if n.Tags, err = decodeStrings(tags); err != nil {
		return amem.Note{}, fmt.Errorf("note %s: tags: %w", n.ID, err)
	}
	if n.Metadata, err = decodeMetadata(meta); err != nil {
		return amem.Note{}, fmt.Errorf("note %s: metadata: %w", n.ID, err)
	}
	if len(emb) > 0 {
		if n.Embedding, err = decodeVector(nil, emb); err != nil {
			return amem.Note{}, fmt.Errorf("note %s: %w", n.ID, err)
		}
	}
	n.Links = []amem.Link{}
	return n, nil
}

// queryNotes runs a query of noteColumns, whose notes must be of one
// namespace, and returns them with their links.
func (t *tx) queryNotes(query string, args ...any) ([]amem.Note, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	notes := []amem.Note{}
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, err
		}
		notes = append(notes, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := t.attachLinks(notes); err != nil {
		return nil, err
	}
	return notes, nil
}

const selectNote = `SELECT ` + noteColumns + ` FROM notes WHERE ns = ? AND id = ?`

func (t *tx) Note(ns, id string) (amem.Note, error) {
	notes, err := t.queryNotes(selectNote, ns, id)
	if err != nil {
		return amem.Note{}, fmt.Errorf("note %s: %w", id, err)
	}
	if len(notes) == 0 {
		return amem.Note{}, notFound(ns, id)
	}
	return notes[0], nil
}

const selectNotes = `SELECT ` + noteColumns + ` FROM notes
WHERE ns = ? AND id IN (SELECT value FROM json_each(?))`

// Notes returns the notes of ns among ids, in no particular order; IDs
// that don't exist there are skipped.
func (t *tx) Notes(ns string, ids []string) ([]amem.Note, error) {
	if len(ids) == 0 {
		return []amem.Note{}, nil
	}
	// The IDs travel as one JSON parameter, however many there are.
	notes, err := t.queryNotes(selectNotes, ns, encodeStrings(ids))
	if err != nil {
		return nil, fmt.Errorf("notes: %w", err)
	}
	return notes, nil
}

const findNote = `SELECT ` + noteColumns + ` FROM notes WHERE id = ?`

func (t *tx) FindNote(id string) (amem.Note, error) {
	notes, err := t.queryNotes(findNote, id)
	if err != nil {
		return amem.Note{}, fmt.Errorf("note %s: %w", id, err)
	}
	if len(notes) == 0 {
		return amem.Note{}, fmt.Errorf("note %s: %w", id, amem.ErrNotFound)
	}
	return notes[0], nil
}

const (
	listNotes = `SELECT ` + noteColumns + ` FROM notes
WHERE ns = ? AND id > ? ORDER BY id LIMIT ?`
	listNotesInState = `SELECT ` + noteColumns + ` FROM notes
WHERE ns = ? AND enrich_state = ? AND id > ? ORDER BY id LIMIT ?`
)

// ListNotes returns the notes of ns with ID > q.After in ID order, with
// their embeddings and links: q.Limit of them, DefaultListLimit when it is
// 0, at most MaxListLimit. A negative limit is amem.ErrInvalid.
func (t *tx) ListNotes(ns string, q amem.ListQuery) ([]amem.Note, error) {
	limit := q.Limit
	switch {
	case limit < 0:
		return nil, fmt.Errorf("list notes: %w: limit %d is negative", amem.ErrInvalid, limit)
	case limit == 0:
		limit = DefaultListLimit
	case limit > MaxListLimit:
		limit = MaxListLimit
	}
	var (
		notes []amem.Note
		err   error
	)
	if q.State == "" {
		notes, err = t.queryNotes(listNotes, ns, q.After, limit)
	} else {
		notes, err = t.queryNotes(listNotesInState, ns, string(q.State), q.After, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	return notes, nil
}

// No ORDER BY: it would make SQLite walk the (ns, id) index instead of
// the one on (ns, event_time). The few IDs are sorted after.
const (
	noteIDsByContentAt = `SELECT id FROM notes WHERE ns = ? AND event_time = ? AND content = ?`
	noteIDsByContent   = `SELECT id FROM notes WHERE ns = ? AND content = ?`
)

// NoteIDsByContent returns the IDs of the notes of ns with exactly this
// content and, unless at is zero, this event time. Without a time it
// reads every note of the namespace.
func (t *tx) NoteIDsByContent(ns, content string, at time.Time) ([]string, error) {
	var (
		rows *sql.Rows
		err  error
	)
	if at.IsZero() {
		rows, err = t.query(noteIDsByContent, ns, content)
	} else {
		var ev any
		if ev, err = timeValue(at); err != nil {
			return nil, err
		}
		rows, err = t.query(noteIDsByContentAt, ns, ev, content)
	}
	if err != nil {
		return nil, fmt.Errorf("notes by content: %w", err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("notes by content: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("notes by content: %w", err)
	}
	slices.Sort(ids)
	return ids, nil
}

// noteValues are a note's encoded columns other than id and ns, in the
// order of insertNote's and updateNote's parameters.
func noteValues(n amem.Note) ([]any, error) {
	if n.ID == "" {
		return nil, fmt.Errorf("%w: note has no ID", amem.ErrInvalid)
	}
	if n.Namespace == "" {
		return nil, fmt.Errorf("%w: note %s has no namespace", amem.ErrInvalid, n.ID)
	}
	var times [4]any
	for i, f := range [4]struct {
		name string
		t    time.Time
	}{
		{"event time", n.EventTime}, {"ingest time", n.IngestTime},
		{"updated at", n.UpdatedAt}, {"enrichment time", n.Enrichment.At},
	} {
		v, err := timeValue(f.t)
		if err != nil {
			return nil, fmt.Errorf("note %s: %s: %w", n.ID, f.name, err)
		}
		times[i] = v
	}
	return []any{
		n.Content, times[0], times[1], times[2],
		encodeStrings(n.Keywords), encodeStrings(n.Tags), encodeStrings(tagKeys(n.Tags)),
		n.Context, encodeMetadata(n.Metadata),
		encodeVector(n.Embedding), n.Version,
		string(n.Enrichment.State), n.Enrichment.Error, n.Enrichment.Attempts, times[3],
	}, nil
}

const insertNote = `INSERT INTO notes (content, event_time, ingest_time, updated_at, keywords, tags,
	tag_keys, context, metadata, embedding, version, enrich_state, enrich_error, enrich_attempts,
	enrich_at, id, ns)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertNote stores a new note; its links are ignored (see PutLink). An ID
// that exists, in any namespace, is amem.ErrConflict.
func (t *tx) InsertNote(n amem.Note) error {
	args, err := noteValues(n)
	if err != nil {
		return fmt.Errorf("insert note: %w", err)
	}
	if _, err := t.exec(insertNote, append(args, n.ID, n.Namespace)...); err != nil {
		if isConstraint(err, constraintUnique) || isConstraint(err, constraintPrimaryKey) {
			return fmt.Errorf("insert note %s: %w", n.ID, amem.ErrConflict)
		}
		return fmt.Errorf("insert note %s: %w", n.ID, err)
	}
	return nil
}

const updateNote = `UPDATE notes SET content = ?, event_time = ?, ingest_time = ?, updated_at = ?,
	keywords = ?, tags = ?, tag_keys = ?, context = ?, metadata = ?, embedding = ?, version = ?,
	enrich_state = ?, enrich_error = ?, enrich_attempts = ?, enrich_at = ?
WHERE id = ? AND ns = ?`

// UpdateNote replaces every field of the note n.ID in n.Namespace but its
// links; a note that isn't there is amem.ErrNotFound.
func (t *tx) UpdateNote(n amem.Note) error {
	args, err := noteValues(n)
	if err != nil {
		return fmt.Errorf("update note: %w", err)
	}
	res, err := t.exec(updateNote, append(args, n.ID, n.Namespace)...)
	if err != nil {
		return fmt.Errorf("update note %s: %w", n.ID, err)
	}
	if ok, err := changed(res); !ok {
		if err == nil {
			err = notFound(n.Namespace, n.ID)
		}
		return fmt.Errorf("update note: %w", err)
	}
	return nil
}

const deleteNote = `DELETE FROM notes WHERE ns = ? AND id = ?`

// DeleteNote removes a note; foreign keys cascade to its links, both ways,
// and its versions, and a trigger removes it from the full-text index.
func (t *tx) DeleteNote(ns, id string) error {
	res, err := t.exec(deleteNote, ns, id)
	if err != nil {
		return fmt.Errorf("delete note %s: %w", id, err)
	}
	if ok, err := changed(res); !ok {
		if err == nil {
			err = notFound(ns, id)
		}
		return fmt.Errorf("delete note: %w", err)
	}
	return nil
}

// changed reports whether res changed a row.
func changed(res sql.Result) (bool, error) {
	n, err := res.RowsAffected()
	return n > 0, err
}
