package sqlite

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/amem-dev/amem"
)

// Fragments of MatchIDs' query, joined by the filters in use.
const (
	matchNotes    = `SELECT id FROM notes WHERE ns = ?`
	matchTimed    = ` AND event_time IS NOT NULL`
	matchFrom     = ` AND event_time >= ?`
	matchTo       = ` AND event_time < ?`
	matchTag      = ` AND EXISTS (SELECT 1 FROM json_each(notes.tag_keys) WHERE value = ?)`
	matchMetadata = ` AND EXISTS (SELECT 1 FROM json_each(notes.metadata) WHERE key = ? AND value = ?)`
	matchOrder    = ` ORDER BY id`
)

// MatchIDs returns, in ID order, the IDs of the notes of ns that pass f:
//
//   - From <= EventTime < To, where a zero bound is no bound; a note with a
//     zero EventTime passes no bounded range. Bounds beyond what a time
//     column holds (years 1678-2261) are clamped.
//   - every tag of f.Tags is among the note's tags, compared after
//     strings.ToLower, so "Work" matches "work";
//   - every pair of f.Metadata is in the note's metadata, compared exactly.
func (t *tx) MatchIDs(ns string, f amem.Filter) ([]string, error) {
	var q strings.Builder
	q.WriteString(matchNotes)
	args := []any{ns}
	if !f.From.IsZero() || !f.To.IsZero() {
		q.WriteString(matchTimed)
	}
	if !f.From.IsZero() && f.From.After(minTime) {
		if f.From.After(maxTime) {
			return []string{}, nil
		}
		q.WriteString(matchFrom)
		args = append(args, f.From.UnixNano())
	}
	if !f.To.IsZero() && !f.To.After(maxTime) {
		if !f.To.After(minTime) {
			return []string{}, nil
		}
		q.WriteString(matchTo)
		args = append(args, f.To.UnixNano())
	}
	for _, tag := range tagKeys(f.Tags) {
		q.WriteString(matchTag)
		args = append(args, tag)
	}
	for k, v := range f.Metadata {
		q.WriteString(matchMetadata)
		args = append(args, k, v)
	}
	q.WriteString(matchOrder)

	rows, err := t.query(q.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("match: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	return ids, nil
}

// lexicalSearch ranks the matches of an FTS5 query within one namespace.
// bm25() is lower-better; its statistics (document frequencies, average
// length) are those of the whole index, every namespace together.
const lexicalSearch = `SELECT n.id, bm25(notes_fts) AS score FROM notes_fts
JOIN notes n ON n.seq = notes_fts.rowid
WHERE notes_fts MATCH ? AND n.ns = ?
ORDER BY score, n.id LIMIT ?`

// LexicalSearch returns up to limit notes of ns that share a word with
// query (after Porter stemming, case and diacritic folding), best first,
// scored by -BM25 so that higher is better. Any text is a valid query: it
// is reduced to its words (see ftsQuery), and one without words matches
// nothing. A limit below 1 is amem.ErrInvalid.
func (t *tx) LexicalSearch(ns, query string, limit int) ([]amem.Scored, error) {
	if limit < 1 {
		return nil, fmt.Errorf("lexical search: %w: limit %d", amem.ErrInvalid, limit)
	}
	out := []amem.Scored{}
	match := ftsQuery(query)
	if match == "" {
		return out, nil
	}
	rows, err := t.query(lexicalSearch, match, ns, limit)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s amem.Scored
		if err := rows.Scan(&s.ID, &s.Score); err != nil {
			return nil, fmt.Errorf("lexical search: %w", err)
		}
		s.Score = -s.Score
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	return out, nil
}

// selectEmbeddings walks notes_ns_id: ID order, which is about insertion
// order, so the table is read nearly sequentially, with no sort.
const selectEmbeddings = `SELECT id, embedding FROM notes
WHERE ns = ? AND embedding IS NOT NULL ORDER BY id`

// Embeddings streams the vectors of ns, in ID order. vec is reused
// between calls: fn must copy what it keeps, and must not use the Tx. An
// error from fn stops the scan and is returned as is; so is the context's
// once it is done.
func (t *tx) Embeddings(ns string, fn func(id string, vec []float32) error) error {
	rows, err := t.query(selectEmbeddings, ns)
	if err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	defer rows.Close()
	var (
		id  string
		raw sql.RawBytes // the driver's buffer, valid until Next
		vec []float32
	)
	for i := 0; rows.Next(); i++ {
		if i%1024 == 0 {
			if err := t.ctx.Err(); err != nil {
				return err
			}
		}
		if err := rows.Scan(&id, &raw); err != nil {
			return fmt.Errorf("embeddings: %w", err)
		}
		if vec, err = decodeVector(vec, raw); err != nil {
			return fmt.Errorf("embeddings: note %s: %w", id, err)
		}
		if len(vec) == 0 {
			continue
		}
		if err := fn(id, vec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	return nil
}
