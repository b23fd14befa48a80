package sqlite

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// filterSQL returns the conditions, each led by " AND ", that pass the
// notes (table alias n) that pass f, with their arguments. none is true
// when no note can pass. Its semantics, which amem.Filter documents:
//
//   - From <= EventTime < To, where a zero bound is no bound; a note with a
//     zero EventTime passes no bounded range. Bounds beyond what a time
//     column holds (years 1678-2261) are clamped.
//   - every tag of f.Tags is among the note's tags, compared after
//     strings.ToLower (tag_keys), so "Work" matches "work"; among the
//     curator's (curator_tag_keys) or not among them for f.TagSource
//     (sqlstore.TagColumns);
//   - every pair of f.Metadata is in the note's metadata, compared exactly;
//   - with f.ValidAt, the note's valid_until is NULL or after it.
//
// Tags and pairs go in as one JSON argument each and are counted, so the
// conditions are as deep whatever their number: one EXISTS per term nested
// past SQLite's expression depth limit (1000) at a few hundred tags.
func filterSQL(f amem.Filter) (cond string, args []any, none bool) {
	var q strings.Builder
	r := sqlstore.Events(f)
	if r.None {
		return "", nil, true
	}
	if r.Bounded {
		q.WriteString(` AND n.event_time IS NOT NULL`)
	}
	if r.HasFrom {
		q.WriteString(` AND n.event_time >= ?`)
		args = append(args, r.From)
	}
	if r.HasTo {
		q.WriteString(` AND n.event_time < ?`)
		args = append(args, r.To)
	}
	if keys := sqlstore.TagKeys(f.Tags); len(keys) > 0 {
		within, exclude := sqlstore.TagColumns(f.TagSource)
		q.WriteString(` AND (SELECT count(*) FROM json_each(n.` + within + `)
	WHERE value IN (SELECT value FROM json_each(?))) = ?`)
		args = append(args, encodeStrings(keys), len(keys))
		if exclude != "" {
			q.WriteString(` AND NOT EXISTS (SELECT 1 FROM json_each(n.` + exclude + `)
	WHERE value IN (SELECT value FROM json_each(?)))`)
			args = append(args, encodeStrings(keys))
		}
	}
	if at, ok := sqlstore.ValidAfter(f); ok {
		q.WriteString(` AND (n.valid_until IS NULL OR n.valid_until > ?)`)
		args = append(args, at)
	}
	if len(f.Metadata) > 0 {
		q.WriteString(` AND (SELECT count(*) FROM json_each(n.metadata) AS m, json_each(?) AS w
	WHERE m.key = w.key AND m.value = w.value) = ?`)
		args = append(args, sqlstore.EncodeMetadata(f.Metadata), len(f.Metadata))
	}
	return q.String(), args, false
}

// MatchIDs returns, in ID order, the IDs of the notes of ns that pass f
// (see filterSQL).
func (t *tx) MatchIDs(ns string, f amem.Filter) ([]string, error) {
	ids := []string{}
	cond, args, none := filterSQL(f)
	if none {
		return ids, nil
	}
	rows, err := t.query(`SELECT n.id FROM notes n WHERE n.ns = ?`+cond+` ORDER BY n.id`, append([]any{ns}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	defer rows.Close()
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

const selectEmbeddingsOf = `SELECT id, embedding FROM notes
WHERE ns = ? AND id IN (SELECT value FROM json_each(?)) AND embedding IS NOT NULL`

// EmbeddingsOf streams the vectors of the notes of ns among ids. vec is
// reused between calls: fn must copy what it keeps, and must not use the
// Tx. An error from fn stops the scan and is returned as is; so is the
// context's once it is done. The IDs travel as one JSON parameter.
func (t *tx) EmbeddingsOf(ns string, ids []string, fn func(id string, vec []float32) error) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := t.query(selectEmbeddingsOf, ns, encodeStrings(ids))
	if err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	defer rows.Close()
	return sqlstore.Embeddings[sql.RawBytes](t.ctx, rows, fn)
}
