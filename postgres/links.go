package postgres

import (
	"fmt"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// selectLinksOf returns the links touching any note of the array $1, each
// once, strongest first; the UNION lets each half use its index (the
// primary key for source, links_target for target). No namespace is
// needed: the foreign keys keep both ends of a link in its namespace.
// NULLS FIRST orders a link without a creation time as SQLite does.
const selectLinksOf = `SELECT source, target, reason, strength, created_at, kind FROM links WHERE source = ANY($1)
UNION
SELECT source, target, reason, strength, created_at, kind FROM links WHERE target = ANY($1)
ORDER BY strength DESC, created_at NULLS FIRST, source, target`

// attachLinks sets each note's Links to every link touching it, in both
// directions, ordered by strength (descending), then creation time. The
// notes must be of one namespace.
func (t *tx) attachLinks(notes []amem.Note) error {
	if len(notes) == 0 {
		return nil
	}
	links, ids := sqlstore.NewLinks(notes)
	rows, err := t.query(selectLinksOf, ids)
	if err != nil {
		return fmt.Errorf("links: %w", err)
	}
	defer rows.Close()
	err = sqlstore.Each(mapped{rows}, func(r sqlstore.Scanner) error {
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
	selectLinkEnds = `SELECT id FROM notes WHERE ns = $1 AND id IN ($2, $3)`
	upsertLink     = `INSERT INTO links (ns, source, target, reason, strength, created_at, kind)
VALUES ($1, $2, $3, $4, $5, $6, $7)
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
	if err := t.notWritable("put link"); err != nil {
		return err
	}
	if err := checkText("link", l.Source, l.Target, l.Reason, string(l.Kind)); err != nil {
		return fmt.Errorf("put link: %w", err)
	}
	created, err := timeValue(l.CreatedAt)
	if err != nil {
		return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, err)
	}
	if err := t.lockFeed(ns); err != nil {
		return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, err)
	}
	// Checked first, rather than read from a failed foreign key, which
	// would abort the transaction: Memory skips links to notes deleted
	// meanwhile and goes on. With the feed row locked no writer of the
	// namespace can delete them before commit.
	rows, err := t.query(selectLinkEnds, ns, l.Source, l.Target)
	if err != nil {
		return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, err)
	}
	ends, err := collectIDs(rows)
	if err != nil {
		return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, err)
	}
	for _, id := range []string{l.Source, l.Target} {
		found := false
		for _, e := range ends {
			found = found || e == id
		}
		if !found {
			return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, sqlstore.NotFound(ns, id))
		}
	}
	if _, err := t.exec(upsertLink, ns, l.Source, l.Target, l.Reason, l.Strength, created, string(l.Kind)); err != nil {
		return fmt.Errorf("put link %s->%s: %w", l.Source, l.Target, err)
	}
	return nil
}

const deleteLinksFrom = `DELETE FROM links WHERE ns = $1 AND source = $2`

// DeleteLinksFrom removes the links whose source is id; none is no error.
func (t *tx) DeleteLinksFrom(ns, id string) error {
	if err := t.notWritable("delete links"); err != nil {
		return err
	}
	if err := t.lockFeed(ns); err != nil {
		return fmt.Errorf("delete links from %s: %w", id, err)
	}
	if _, err := t.exec(deleteLinksFrom, ns, id); err != nil {
		return fmt.Errorf("delete links from %s: %w", id, err)
	}
	return nil
}
