package postgres

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// ListNotes limits, the same in package sqlite.
const (
	// DefaultListLimit is the page size of ListNotes when ListQuery.Limit
	// is 0.
	DefaultListLimit = sqlstore.DefaultListLimit
	// MaxListLimit caps ListQuery.Limit: a larger limit returns this many.
	MaxListLimit = sqlstore.MaxListLimit
)

// noteColumns are the columns scanNote reads, in its order;
// noteColumnsNoVector sends NULL for the embedding, for reads that don't
// need it.
const (
	notePrefix          = `id, ns, content, event_time, ingest_time, updated_at, keywords, tags, curator_tag_keys, context, caller_attrs, metadata::text, `
	noteSuffix          = `, version, enrich_state, enrich_error, enrich_attempts, enrich_at, due_at, valid_until, superseded_by, caller_validity`
	noteColumns         = notePrefix + `embedding` + noteSuffix
	noteColumnsNoVector = notePrefix + `NULL::bytea` + noteSuffix
)

// scanNote reads one row of noteColumns, after the columns of lead if
// any, decoding the embedding into vec when it is large enough. Links are
// attached by the caller.
func scanNote(rows pgx.Rows, vec []float32, lead ...any) (amem.Note, error) {
	var (
		n                               amem.Note
		event, ingest, updated, at, due pgtype.Int8
		meta                            []byte
		state                           string
		curated                         []string
		callerAttrs                     int64
		emb                             pgtype.DriverBytes // the driver's buffer: decoded at once
		validUntil                      pgtype.Int8
	)
	err := rows.Scan(append(lead, &n.ID, &n.Namespace, &n.Content, &event, &ingest, &updated, &n.Keywords, &n.Tags, &curated,
		&n.Context, &callerAttrs, &meta, &emb, &n.Version, &state, &n.Enrichment.Error, &n.Enrichment.Attempts, &at, &due,
		&validUntil, &n.SupersededBy, &n.CallerValidity)...)
	if err != nil {
		return amem.Note{}, err
	}
	n.ValidUntil = timeOf(validUntil)
	n.EventTime, n.IngestTime, n.UpdatedAt = timeOf(event), timeOf(ingest), timeOf(updated)
	n.Enrichment.State, n.Enrichment.At = amem.EnrichState(state), timeOf(at)
	n.Enrichment.DueAt = timeOf(due)
	n.Keywords, n.Tags = stringsOf(n.Keywords), stringsOf(n.Tags)
	n.CuratorTags = sqlstore.CuratorTagsOf(n.Tags, curated)
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
	notes, err := sqlstore.Collect(mapped{rows}, func(sqlstore.Scanner) (amem.Note, error) { return scanNote(rows, nil) })
	if err != nil {
		return nil, err
	}
	if err := t.attachLinks(notes); err != nil {
		return nil, err
	}
	return notes, nil
}

const selectNote = `SELECT ` + noteColumns + ` FROM notes WHERE ns = $1 AND id = $2`

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

// The IDs travel as one array parameter, however many there are.
const (
	notesWhere          = ` FROM notes WHERE ns = $1 AND id = ANY($2)`
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
	notes, err := t.queryNotes(query, ns, ids)
	if err != nil {
		return nil, fmt.Errorf("notes: %w", err)
	}
	return notes, nil
}

const findNote = `SELECT ` + noteColumns + ` FROM notes WHERE id = $1`

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
	listWhere           = ` FROM notes WHERE ns = $1 AND id > $2 ORDER BY id LIMIT $3`
	listInStateWhere    = ` FROM notes WHERE ns = $1 AND id > $2 AND enrich_state = $4 ORDER BY id LIMIT $3`
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
	all, inState := listNotes, listNotesInState
	if q.Embeddings {
		all, inState = listNotesVec, listNotesInStateVec
	}
	var notes []amem.Note
	if q.State == "" {
		notes, err = t.queryNotes(all, ns, q.After, limit)
	} else {
		notes, err = t.queryNotes(inState, ns, q.After, limit, string(q.State))
	}
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	return notes, nil
}

const (
	noteIDsByContentAt = `SELECT id FROM notes WHERE ns = $1 AND event_time = $2 AND content = $3`
	noteIDsByContent   = `SELECT id FROM notes WHERE ns = $1 AND content = $2`
)

// NoteIDsByContent returns, in ID order, the IDs of the notes of ns with
// exactly this content and, unless at is zero, this event time (an
// indexed lookup); without a time it reads every note of the namespace.
func (t *tx) NoteIDsByContent(ns, content string, at time.Time) ([]string, error) {
	if checkText("content", content) != nil {
		return []string{}, nil // no stored note holds a NUL
	}
	var (
		rows pgx.Rows
		err  error
	)
	if at.IsZero() {
		rows, err = t.query(noteIDsByContent, ns, content)
	} else {
		ev, verr := timeValue(at)
		if verr != nil {
			return nil, verr
		}
		rows, err = t.query(noteIDsByContentAt, ns, ev, content)
	}
	if err != nil {
		return nil, fmt.Errorf("notes by content: %w", err)
	}
	ids, err := collectIDs(rows)
	if err != nil {
		return nil, fmt.Errorf("notes by content: %w", err)
	}
	slices.Sort(ids)
	return ids, nil
}

// collectIDs reads a query of one text column.
func collectIDs(rows pgx.Rows) ([]string, error) {
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, mapError(rows.Err())
}

// noteValues are a note's encoded columns other than id and ns, in the
// order of insertNote's and updateNote's parameters.
func noteValues(n amem.Note) ([]any, error) {
	if err := sqlstore.CheckNote(n); err != nil {
		return nil, err
	}
	if err := checkText("note ID and namespace", n.ID, n.Namespace); err != nil {
		return nil, err
	}
	if err := checkNoteText(n); err != nil {
		return nil, fmt.Errorf("note %s: %w", n.ID, err)
	}
	times, err := sqlstore.NoteTimes(n, timeValue)
	if err != nil {
		return nil, err
	}
	if err := checkText("superseding note ID", n.SupersededBy); err != nil {
		return nil, fmt.Errorf("note %s: %w", n.ID, err)
	}
	validUntil, err := timeValue(n.ValidUntil)
	if err != nil {
		return nil, fmt.Errorf("note %s: valid until: %w", n.ID, err)
	}
	return []any{
		n.Content, times[0], times[1], times[2],
		stringsValue(n.Keywords), stringsValue(n.Tags), sqlstore.TagKeys(n.Tags),
		sqlstore.CuratorTagKeys(n),
		n.Context, sqlstore.CallerAttrs(n), sqlstore.EncodeMetadata(n.Metadata),
		sqlstore.EncodeVector(n.Embedding), n.Version,
		string(n.Enrichment.State), n.Enrichment.Error, n.Enrichment.Attempts, times[3], times[4],
		validUntil, n.SupersededBy, n.CallerValidity,
	}, nil
}

// insertNote does nothing for an ID that exists, rather than fail: a
// failed statement would abort the transaction, and a conflict must
// leave it usable.
const insertNote = `INSERT INTO notes (content, event_time, ingest_time, updated_at, keywords, tags,
	tag_keys, curator_tag_keys, context, caller_attrs, metadata, embedding, version, enrich_state, enrich_error,
	enrich_attempts, enrich_at, due_at, valid_until, superseded_by, caller_validity, change_seq, id, ns)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
ON CONFLICT DO NOTHING`

// InsertNote stores a new note; its links are ignored (see PutLink). An ID
// that exists, in any namespace, is amem.ErrConflict.
func (t *tx) InsertNote(n amem.Note) error {
	if err := t.notWritable("insert note"); err != nil {
		return err
	}
	args, err := noteValues(n)
	if err != nil {
		return fmt.Errorf("insert note: %w", err)
	}
	seq, err := t.changeSeq(n.Namespace)
	if err != nil {
		return fmt.Errorf("insert note %s: %w", n.ID, err)
	}
	tag, err := t.exec(insertNote, append(args, seq, n.ID, n.Namespace)...)
	if err != nil {
		return fmt.Errorf("insert note %s: %w", n.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("insert note %s: %w", n.ID, amem.ErrConflict)
	}
	return nil
}

const (
	updateNote = `UPDATE notes SET content = $1, event_time = $2, ingest_time = $3, updated_at = $4,
	keywords = $5, tags = $6, tag_keys = $7, curator_tag_keys = $8, context = $9, caller_attrs = $10,
	metadata = $11, embedding = $12, version = $13, enrich_state = $14, enrich_error = $15,
	enrich_attempts = $16, enrich_at = $17, due_at = $18, valid_until = $19, superseded_by = $20,
	caller_validity = $21, change_seq = $22
WHERE id = $23 AND ns = $24 AND version = $25`
	selectVersion = `SELECT version FROM notes WHERE ns = $1 AND id = $2`
)

// UpdateNote replaces every field of the note n.ID in n.Namespace but its
// links and claim, if its stored version is ifVersion: a note that isn't
// there is amem.ErrNotFound, one at another version amem.ErrConflict.
func (t *tx) UpdateNote(n amem.Note, ifVersion int) error {
	if err := t.notWritable("update note"); err != nil {
		return err
	}
	args, err := noteValues(n)
	if err != nil {
		return fmt.Errorf("update note: %w", err)
	}
	seq, err := t.changeSeq(n.Namespace)
	if err != nil {
		return fmt.Errorf("update note %s: %w", n.ID, err)
	}
	tag, err := t.exec(updateNote, append(args, seq, n.ID, n.Namespace, ifVersion)...)
	if err != nil {
		return fmt.Errorf("update note %s: %w", n.ID, err)
	}
	if tag.RowsAffected() == 0 {
		var v int
		err := t.queryRow(selectVersion, []any{n.Namespace, n.ID}, &v)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			err = sqlstore.NotFound(n.Namespace, n.ID)
		case err == nil:
			err = fmt.Errorf("note %s is at version %d, not %d: %w", n.ID, v, ifVersion, amem.ErrConflict)
		}
		return fmt.Errorf("update note: %w", err)
	}
	return nil
}

const (
	deleteNote      = `DELETE FROM notes WHERE ns = $1 AND id = $2`
	insertTombstone = `INSERT INTO tombstones (ns, seq, id, deleted_at) VALUES ($1, $2, $3, $4)`
)

// DeleteNote removes a note and leaves a tombstone in the change feed;
// foreign keys cascade to its links, both ways, and its versions. The
// change number is taken first, so that the feed row is locked before
// the note's (see lockFeed); a note that isn't there then leaves the
// number unused, which followers don't notice.
func (t *tx) DeleteNote(ns, id string) error {
	if err := t.notWritable("delete note"); err != nil {
		return err
	}
	seq, err := t.changeSeq(ns)
	if err != nil {
		return fmt.Errorf("delete note %s: %w", id, err)
	}
	tag, err := t.exec(deleteNote, ns, id)
	if err != nil {
		return fmt.Errorf("delete note %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete note: %w", sqlstore.NotFound(ns, id))
	}
	if _, err := t.exec(insertTombstone, ns, seq, id, time.Now().UnixNano()); err != nil {
		return fmt.Errorf("delete note %s: tombstone: %w", id, err)
	}
	return nil
}
