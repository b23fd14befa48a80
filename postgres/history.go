package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// insertVersion does nothing for a version number the note has (a
// failed statement would abort the transaction) and nothing for a note
// that isn't there, which AddVersion then tells apart.
const insertVersion = `INSERT INTO versions (note_id, ns, version, actor, reason, changes, snapshot, created_at)
SELECT $1, $2, $3, $4, $5, $6, $7, $8
WHERE EXISTS (SELECT 1 FROM notes WHERE ns = $2 AND id = $1)
ON CONFLICT DO NOTHING`

// AddVersion records one version of a note of v.Namespace: a note that
// isn't there is amem.ErrNotFound, a version number it already has
// amem.ErrConflict.
func (t *tx) AddVersion(v amem.Version) error {
	if v.NoteID == "" || v.Namespace == "" {
		return fmt.Errorf("add version: %w: no note ID or namespace", amem.ErrInvalid)
	}
	if err := t.notWritable("add version"); err != nil {
		return err
	}
	if err := checkText("version", v.NoteID, v.Namespace, string(v.Actor), v.Reason); err != nil {
		return fmt.Errorf("add version: %w", err)
	}
	created, err := timeValue(v.CreatedAt)
	if err != nil {
		return fmt.Errorf("add version %d of %s: %w", v.Version, v.NoteID, err)
	}
	changes, snapshot, err := sqlstore.EncodeVersion(v)
	if err != nil {
		return fmt.Errorf("add version %d of %s: %w", v.Version, v.NoteID, err)
	}
	// The note can't be deleted between the insert and the check below:
	// deleting takes the feed row.
	if err := t.lockFeed(v.Namespace); err != nil {
		return fmt.Errorf("add version %d of %s: %w", v.Version, v.NoteID, err)
	}
	tag, err := t.exec(insertVersion, v.NoteID, v.Namespace, v.Version, string(v.Actor), v.Reason,
		changes, snapshot, created)
	if err != nil {
		return fmt.Errorf("add version %d of %s: %w", v.Version, v.NoteID, err)
	}
	if tag.RowsAffected() == 0 {
		if err := t.exists(v.Namespace, v.NoteID); err != nil {
			return fmt.Errorf("add version %d: %w", v.Version, err)
		}
		return fmt.Errorf("add version %d of %s: %w", v.Version, v.NoteID, amem.ErrConflict)
	}
	return nil
}

const selectVersions = `SELECT note_id, ns, version, actor, reason, changes, snapshot, created_at
FROM versions WHERE ns = $1 AND note_id = $2 ORDER BY version`

// Versions returns a note's versions, oldest first; none for a note that
// isn't in ns.
func (t *tx) Versions(ns, id string) ([]amem.Version, error) {
	rows, err := t.query(selectVersions, ns, id)
	if err != nil {
		return nil, fmt.Errorf("versions of %s: %w", id, err)
	}
	defer rows.Close()
	out, err := sqlstore.Collect(mapped{rows}, sqlstore.ScanVersion)
	if err != nil {
		return nil, fmt.Errorf("versions of %s: %w", id, err)
	}
	return out, nil
}

const insertUsage = `INSERT INTO usage (ns, note_id, operation, prompt_tokens, completion_tokens, at)
VALUES ($1, $2, $3, $4, $5, $6)`

func (t *tx) RecordUsage(r amem.UsageRecord) error {
	if r.Namespace == "" {
		return fmt.Errorf("record usage: %w: no namespace", amem.ErrInvalid)
	}
	if err := t.notWritable("record usage"); err != nil {
		return err
	}
	if err := checkText("usage", r.Namespace, r.NoteID, r.Operation); err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	at, err := timeValue(r.At)
	if err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	if _, err := t.exec(insertUsage, r.Namespace, r.NoteID, r.Operation,
		r.Usage.PromptTokens, r.Usage.CompletionTokens, at); err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	return nil
}

const (
	selectUsageTotals = `SELECT operation, count(*), sum(prompt_tokens), sum(completion_tokens)
FROM usage WHERE ns = $1 GROUP BY operation ORDER BY operation`
	selectNoteUsage = `SELECT operation, count(*), sum(prompt_tokens), sum(completion_tokens)
FROM usage WHERE ns = $1 AND note_id = $2 GROUP BY operation ORDER BY operation`
)

// UsageTotals sums the usage of ns by operation, in operation order.
func (t *tx) UsageTotals(ns string) ([]amem.UsageTotal, error) {
	return t.usageTotals(selectUsageTotals, ns)
}

// NoteUsage sums the usage recorded for one note by operation.
func (t *tx) NoteUsage(ns, id string) ([]amem.UsageTotal, error) {
	return t.usageTotals(selectNoteUsage, ns, id)
}

func (t *tx) usageTotals(query string, args ...any) ([]amem.UsageTotal, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("usage totals: %w", err)
	}
	defer rows.Close()
	return sqlstore.UsageTotals(mapped{rows})
}

const (
	countNotesByState = `SELECT enrich_state, count(*) FROM notes WHERE ns = $1 GROUP BY enrich_state`
	countLinks        = `SELECT count(*) FROM links WHERE ns = $1`
)

// Stats counts the notes of ns by enrichment state (states without notes
// are absent from ByState) and its links.
func (t *tx) Stats(ns string) (amem.NamespaceStats, error) {
	rows, err := t.query(countNotesByState, ns)
	if err != nil {
		return amem.NamespaceStats{}, fmt.Errorf("stats: %w", err)
	}
	defer rows.Close()
	st, err := sqlstore.NotesByState(mapped{rows})
	if err != nil {
		return amem.NamespaceStats{}, err
	}
	if err := t.queryRow(countLinks, []any{ns}, &st.Links); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return amem.NamespaceStats{}, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}
