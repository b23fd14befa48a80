package postgres

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// filterSQL returns the conditions, each led by " AND ", that pass the
// notes (table alias n) that pass f, with their arguments numbered from
// first. none is true when no note can pass. The semantics are package
// sqlite's filterSQL's, which amem.Filter documents:
//
//   - From <= EventTime < To, where a zero bound is no bound; a note with a
//     zero EventTime passes no bounded range. Bounds beyond what a time
//     column holds (years 1678-2261) are clamped.
//   - every tag of f.Tags is among the note's tags, compared after
//     strings.ToLower (tag_keys), so "Work" matches "work"; among the
//     curator's or not among them for f.TagSource (sqlstore.TagColumns);
//   - every pair of f.Metadata is in the note's metadata, compared exactly.
//
// Tags go in as one text[] and pairs as one jsonb argument, tested by
// containment (@>), so the query is the same whatever their number.
func filterSQL(f amem.Filter, first int) (cond string, args []any, none bool) {
	var q strings.Builder
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(first+len(args)-1)
	}
	r := sqlstore.Events(f)
	if r.None {
		return "", nil, true
	}
	if r.Bounded {
		q.WriteString(` AND n.event_time IS NOT NULL`)
	}
	if r.HasFrom {
		q.WriteString(` AND n.event_time >= ` + arg(r.From))
	}
	if r.HasTo {
		q.WriteString(` AND n.event_time < ` + arg(r.To))
	}
	if keys := sqlstore.TagKeys(f.Tags); len(keys) > 0 {
		if checkText("tags", keys...) != nil {
			return "", nil, true // no stored tag holds a NUL
		}
		within, exclude := sqlstore.TagColumns(f.TagSource)
		k := arg(keys)
		q.WriteString(` AND n.` + within + ` @> ` + k + `::text[]`)
		if exclude != "" {
			q.WriteString(` AND NOT n.` + exclude + ` && ` + k + `::text[]`)
		}
	}
	if at, ok := sqlstore.ValidAfter(f); ok {
		q.WriteString(` AND (n.valid_until IS NULL OR n.valid_until > ` + arg(at) + `)`)
	}
	if len(f.Metadata) > 0 {
		for k, v := range f.Metadata {
			if checkText("metadata", k, v) != nil {
				return "", nil, true
			}
		}
		q.WriteString(` AND n.metadata @> ` + arg(sqlstore.EncodeMetadata(f.Metadata)) + `::jsonb`)
	}
	return q.String(), args, false
}

// MatchIDs returns, in ID order, the IDs of the notes of ns that pass f
// (see filterSQL).
func (t *tx) MatchIDs(ns string, f amem.Filter) ([]string, error) {
	cond, args, none := filterSQL(f, 2)
	if none {
		return []string{}, nil
	}
	rows, err := t.query(`SELECT n.id FROM notes n WHERE n.ns = $1`+cond+` ORDER BY n.id`, append([]any{ns}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	ids, err := collectIDs(rows)
	if err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	return ids, nil
}

const selectEmbeddingsOf = `SELECT id, embedding FROM notes
WHERE ns = $1 AND id = ANY($2) AND embedding IS NOT NULL`

// EmbeddingsOf streams the vectors of the notes of ns among ids. vec is
// reused between calls: fn must copy what it keeps, and must not use the
// Tx. An error from fn stops the scan and is returned as is; so is the
// context's once it is done.
func (t *tx) EmbeddingsOf(ns string, ids []string, fn func(id string, vec []float32) error) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := t.query(selectEmbeddingsOf, ns, ids)
	if err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	defer rows.Close()
	return sqlstore.Embeddings[pgtype.DriverBytes](t.ctx, mapped{rows}, fn)
}
