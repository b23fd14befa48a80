package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// ListNotes limits, the same in package postgres.
const (
	// DefaultListLimit is the page size of ListNotes when ListQuery.Limit
	// is 0.
	DefaultListLimit = sqlstore.DefaultListLimit
	// MaxListLimit caps ListQuery.Limit: a larger limit returns this many.
	MaxListLimit = sqlstore.MaxListLimit
)

// noteColumns are the columns scanNote reads, in its order;
// noteColumnsNoVector reads NULL for the embedding, for reads that don't
// need it (decoding a 512-d vector costs more than the rest of a note).
const (
	notePrefix          = `id, ns, content, event_time, ingest_time, updated_at, keywords, tags, curator_tag_keys, context, caller_attrs, metadata, `
	noteSuffix          = `, version, enrich_state, enrich_error, enrich_attempts, enrich_at, due_at, valid_until, superseded_by, caller_validity`
	noteColumns         = notePrefix + `embedding` + noteSuffix
	noteColumnsNoVector = notePrefix + `NULL` + noteSuffix
)

// scanNote reads one row of noteColumns, after the columns of lead if
// any. Links are attached by the caller.
func scanNote(rows *sql.Rows, lead ...any) (amem.Note, error) {
	return scanNoteInto(rows, nil, lead...)
}

// scanNoteInto is scanNote decoding the embedding into vec when it is
// large enough, for a reader that uses each note only briefly.
func scanNoteInto(rows *sql.Rows, vec []float32, lead ...any) (amem.Note, error) {
	var (
		n                               amem.Note
		event, ingest, updated, at, due sql.NullInt64
		keywords, tags, curated         string
		meta, state                     string
		callerAttrs                     int64
		emb                             sql.RawBytes // decoded at once, not copied
		validUntil                      sql.NullInt64
	)
	err := rows.Scan(append(lead, &n.ID, &n.Namespace, &n.Content, &event, &ingest, &updated, &keywords, &tags, &curated,
		&n.Context, &callerAttrs, &meta, &emb, &n.Version, &state, &n.Enrichment.Error, &n.Enrichment.Attempts, &at, &due,
		&validUntil, &n.SupersededBy, &n.CallerValidity)...)
	if err != nil {
		return amem.Note{}, err
	}
	n.ValidUntil = timeOf(validUntil)
	n.EventTime, n.IngestTime, n.UpdatedAt = timeOf(event), timeOf(ingest), timeOf(updated)
	n.Enrichment.State, n.Enrichment.At = amem.EnrichState(state), timeOf(at)
	n.Enrichment.DueAt = timeOf(due)
	if n.Keywords, err = decodeStrings(keywords); err != nil {
		return amem.Note{}, fmt.Errorf("note %s: keywords: %w", n.ID, err)
	}
	if n.Tags, err = decodeStrings(tags); err != nil {
		return amem.Note{}, fmt.Errorf("note %s: tags: %w", n.ID, err)
	}
	keys, err := decodeStrings(curated)
	if err != nil {
		return amem.Note{}, fmt.Errorf("note %s: curator tag keys: %w", n.ID, err)
	}
	n.CuratorTags = sqlstore.CuratorTagsOf(n.Tags, keys)
	sqlstore.SetCallerAttrs(&n, callerAttrs)
	if err := sqlstore.FinishNote(&n, meta, emb, vec); err != nil {
		return amem.Note{}, err
	}
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
	notes, err := sqlstore.Collect(rows, func(sqlstore.Scanner) (amem.Note, error) { return scanNote(rows) })
	if err != nil {
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
		return amem.Note{}, sqlstore.NotFound(ns, id)
	}
	return notes[0], nil
}

const (
	notesWhere          = ` FROM notes WHERE ns = ? AND id IN (SELECT value FROM json_each(?))`
	selectNotes         = `SELECT ` + noteColumns + notesWhere
	selectNotesNoVector = `SELECT ` + noteColumnsNoVector + notesWhere
)

// Notes returns the notes of ns among ids, in no particular order; IDs
// that don't exist there are skipped.
func (t *tx) Notes(ns string, ids []string) ([]amem.Note, error) {
	return t.notesOf(selectNotes, ns, ids)
}

// NotesWithoutEmbeddings is Notes with every Embedding nil.
func (t *tx) NotesWithoutEmbeddings(ns string, ids []string) ([]amem.Note, error) {
	return t.notesOf(selectNotesNoVector, ns, ids)
}

func (t *tx) notesOf(query, ns string, ids []string) ([]amem.Note, error) {
	if len(ids) == 0 {
		return []amem.Note{}, nil
	}
	// The IDs travel as one JSON parameter, however many there are.
	notes, err := t.queryNotes(query, ns, encodeStrings(ids))
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
	listWhere           = ` FROM notes WHERE ns = ? AND id > ? ORDER BY id LIMIT ?`
	listInStateWhere    = ` FROM notes WHERE ns = ? AND enrich_state = ? AND id > ? ORDER BY id LIMIT ?`
	listNotes           = `SELECT ` + noteColumnsNoVector + listWhere
	listNotesInState    = `SELECT ` + noteColumnsNoVector + listInStateWhere
	listNotesVec        = `SELECT ` + noteColumns + listWhere
	listNotesInStateVec = `SELECT ` + noteColumns + listInStateWhere
)

// ListNotes returns the notes of ns with ID > q.After in ID order, with
// their links, and their embeddings if q.Embeddings: q.Limit of them,
// DefaultListLimit when it is 0, at most MaxListLimit. A negative limit
// is amem.ErrInvalid.
func (t *tx) ListNotes(ns string, q amem.ListQuery) ([]amem.Note, error) {
	limit, err := sqlstore.ListLimit(q.Limit)
	if err != nil {
		return nil, err
	}
	var notes []amem.Note
	all, inState := listNotes, listNotesInState
	if q.Embeddings {
		all, inState = listNotesVec, listNotesInStateVec
	}
	if q.State == "" {
		notes, err = t.queryNotes(all, ns, q.After, limit)
	} else {
		notes, err = t.queryNotes(inState, ns, string(q.State), q.After, limit)
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
	if err := sqlstore.CheckNote(n); err != nil {
		return nil, err
	}
	times, err := sqlstore.NoteTimes(n, timeValue)
	if err != nil {
		return nil, err
	}
	validUntil, err := timeValue(n.ValidUntil)
	if err != nil {
		return nil, fmt.Errorf("note %s: valid until: %w", n.ID, err)
	}
	return []any{
		n.Content, times[0], times[1], times[2],
		encodeStrings(n.Keywords), encodeStrings(n.Tags), encodeStrings(sqlstore.TagKeys(n.Tags)),
		encodeStrings(sqlstore.CuratorTagKeys(n)),
		n.Context, sqlstore.CallerAttrs(n), sqlstore.EncodeMetadata(n.Metadata),
		sqlstore.EncodeVector(n.Embedding), n.Version,
		string(n.Enrichment.State), n.Enrichment.Error, n.Enrichment.Attempts, times[3], times[4],
		validUntil, n.SupersededBy, n.CallerValidity,
	}, nil
}

const insertNote = `INSERT INTO notes (content, event_time, ingest_time, updated_at, keywords, tags,
	tag_keys, curator_tag_keys, context, caller_attrs, metadata, embedding, version, enrich_state, enrich_error, enrich_attempts,
	enrich_at, due_at, valid_until, superseded_by, caller_validity, change_seq, id, ns)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertNote stores a new note; its links are ignored (see PutLink). An ID
// that exists, in any namespace, is amem.ErrConflict.
func (t *tx) InsertNote(n amem.Note) error {
	args, err := noteValues(n)
	if err != nil {
		return fmt.Errorf("insert note: %w", err)
	}
	seq, err := t.changeSeq(n.Namespace)
	if err != nil {
		return fmt.Errorf("insert note %s: %w", n.ID, err)
	}
	if _, err := t.exec(insertNote, append(args, seq, n.ID, n.Namespace)...); err != nil {
		if isConstraint(err, constraintUnique) || isConstraint(err, constraintPrimaryKey) {
			return fmt.Errorf("insert note %s: %w", n.ID, amem.ErrConflict)
		}
		return fmt.Errorf("insert note %s: %w", n.ID, err)
	}
	return nil
}

const (
	updateNote = `UPDATE notes SET content = ?, event_time = ?, ingest_time = ?, updated_at = ?,
	keywords = ?, tags = ?, tag_keys = ?, curator_tag_keys = ?, context = ?, caller_attrs = ?, metadata = ?, embedding = ?, version = ?,
	enrich_state = ?, enrich_error = ?, enrich_attempts = ?, enrich_at = ?, due_at = ?,
	valid_until = ?, superseded_by = ?, caller_validity = ?, change_seq = ?
WHERE id = ? AND ns = ? AND version = ?`
	selectVersion = `SELECT version FROM notes WHERE ns = ? AND id = ?`
)

// UpdateNote replaces every field of the note n.ID in n.Namespace but its
// links and claim, if its stored version is ifVersion: a note that isn't
// there is amem.ErrNotFound, one at another version amem.ErrConflict.
func (t *tx) UpdateNote(n amem.Note, ifVersion int) error {
	args, err := noteValues(n)
	if err != nil {
		return fmt.Errorf("update note: %w", err)
	}
	seq, err := t.changeSeq(n.Namespace)
	if err != nil {
		return fmt.Errorf("update note %s: %w", n.ID, err)
	}
	res, err := t.exec(updateNote, append(args, seq, n.ID, n.Namespace, ifVersion)...)
	if err != nil {
		return fmt.Errorf("update note %s: %w", n.ID, err)
	}
	if ok, err := changed(res); !ok {
		if err == nil {
			err = t.whyUnchanged(n.Namespace, n.ID, ifVersion)
		}
		return fmt.Errorf("update note: %w", err)
	}
	return nil
}

// whyUnchanged explains an update that matched no row: the note is gone,
// or it is at another version than the caller read.
func (t *tx) whyUnchanged(ns, id string, ifVersion int) error {
	var v int
	err := t.queryRow(selectVersion, ns, id).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return sqlstore.NotFound(ns, id)
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("note %s is at version %d, not %d: %w", id, v, ifVersion, amem.ErrConflict)
}

const (
	deleteNote      = `DELETE FROM notes WHERE ns = ? AND id = ?`
	insertTombstone = `INSERT INTO tombstones (ns, seq, id, deleted_at) VALUES (?, ?, ?, ?)`
)

// DeleteNote removes a note and leaves a tombstone in the change feed;
// foreign keys cascade to its links, both ways, and its versions.
func (t *tx) DeleteNote(ns, id string) error {
	res, err := t.exec(deleteNote, ns, id)
	if err != nil {
		return fmt.Errorf("delete note %s: %w", id, err)
	}
	if ok, err := changed(res); !ok {
		if err == nil {
			err = sqlstore.NotFound(ns, id)
		}
		return fmt.Errorf("delete note: %w", err)
	}
	seq, err := t.changeSeq(ns)
	if err != nil {
		return fmt.Errorf("delete note %s: %w", id, err)
	}
	if _, err := t.exec(insertTombstone, ns, seq, id, time.Now().UnixNano()); err != nil {
		return fmt.Errorf("delete note %s: tombstone: %w", id, err)
	}
	return nil
}

// changed reports whether res changed a row.
func changed(res sql.Result) (bool, error) {
	n, err := res.RowsAffected()
	return n > 0, err
}
