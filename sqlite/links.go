package sqlite

import (
	"fmt"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// selectLinksOf returns the links touching any note of the JSON array ?1,
// each once, strongest first. It needs no namespace: the notes given are
// of one namespace, and the foreign keys keep both ends of a link in the
// link's namespace. (Filtering on ns anyway led the planner, which has no
// statistics, to scan links_ns rather than use links_target.) The UNION
// lets each half use its index: the primary key for source, links_target
// for target.
const selectLinksOf = `SELECT source, target, reason, strength, created_at, kind FROM links
WHERE source IN (SELECT value FROM json_each(?1))
UNION
SELECT source, target, reason, strength, created_at, kind FROM links
WHERE target IN (SELECT value FROM json_each(?1))
ORDER BY strength DESC, created_at, source, target`

// attachLinks sets each note's Links to every link touching it, in both
// directions, ordered by strength (descending), then creation time. The
// notes must be of one namespace.
func (t *tx) attachLinks(notes []amem.Note) error {
	if len(notes) == 0 {
		return nil
	}
	links, ids := sqlstore.NewLinks(notes)
	rows, err := t.query(selectLinksOf, encodeStrings(ids))
	if err != nil {
		return fmt.Errorf("links: %w", err)
	}
	defer rows.Close()
	err = sqlstore.Each(rows, func(r sqlstore.Scanner) error {
		l, err := sqlstore.ScanLink(r)
		if err == nil {
			links.Add(l)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("links: %w", err)
	}
	return nil
}

const (
	selectLinkEnds = `SELECT id FROM notes WHERE ns = ? AND id IN (?, ?)`
	upsertLink     = `INSERT INTO links (ns, source, target, reason, strength, created_at, kind)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (source, target) DO UPDATE SET
	reason = excluded.reason, strength = excluded.strength, created_at = excluded.created_at, kind = excluded.kind`
)

// PutLink inserts or replaces the link l.Source->l.Target. Both notes must
// be in ns (amem.ErrNotFound names the one that isn't); a link from a note
// to itself, or with a NaN or infinite strength, is amem.ErrInvalid.
func (t *tx) PutLink(ns string, l amem.Link) error {
	if err := sqlstore.CheckLink(l); err != nil {
		return err
	}
	created, err := timeValue(l.CreatedAt)
	if err != nil {
		return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, err)
	}
	// Checked first, rather than read from a failed foreign key, so that
	// the error names the missing note and the transaction goes on
	// unharmed (Memory skips links to notes deleted meanwhile).
	found, err := t.existing(selectLinkEnds, ns, l.Source, l.Target)
	if err != nil {
		return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, err)
	}
	for _, id := range []string{l.Source, l.Target} {
		if !found[id] {
			return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, sqlstore.NotFound(ns, id))
		}
	}
	if _, err := t.exec(upsertLink, ns, l.Source, l.Target, l.Reason, l.Strength, created, string(l.Kind)); err != nil {
		return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, err)
	}
	return nil
}

// existing runs a query of IDs and returns them as a set.
func (t *tx) existing(query string, args ...any) (map[string]bool, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[string]bool)
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		found[id] = true
	}
	return found, rows.Err()
}

const deleteLinksFrom = `DELETE FROM links WHERE ns = ? AND source = ?`

// DeleteLinksFrom removes the links whose source is id; none is no error.
func (t *tx) DeleteLinksFrom(ns, id string) error {
	if _, err := t.exec(deleteLinksFrom, ns, id); err != nil {
		return fmt.Errorf("delete links from %s: %w", id, err)
	}
	return nil
}
