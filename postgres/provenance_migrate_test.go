package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/postgres"
)

// TestMigrationProvenanceReadsHistory is package sqlite's test of the
// same name: a note stored before the migration gets a caller's mark on
// a field that is not empty and whose last change in its history is the
// user's.
func TestMigrationProvenanceReadsHistory(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	if err := postgres.MigrateTo(ctx, url, postgres.ProvenanceVersion-1); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		id, keywords, context string
		history               []string
		callerKeywords        bool
		callerContext         bool
	}{
		{"01JAAAAAAAAAAAAAAAAAAAAAA1", "{kw}", "Mine.",
			[]string{"user: content keywords", "construct: keywords context", "user: context"}, false, true},
		{"01JAAAAAAAAAAAAAAAAAAAAAA2", "{mine}", "Curated.",
			[]string{"user: content keywords", "construct: context"}, true, false},
		{"01JAAAAAAAAAAAAAAAAAAAAAA3", "{}", "",
			[]string{"user: content", "construct: keywords context", "user: content keywords context"}, false, false},
		{"01JAAAAAAAAAAAAAAAAAAAAAA4", "{kw}", "Restored.",
			[]string{"user: content", "construct: keywords context", "restore: context"}, false, false},
	}
	for _, c := range cases {
		if err := pgtest.Exec(ctx, url, `INSERT INTO notes (id, ns, content, keywords, context, version, enrich_state, change_seq)
VALUES ($1, 'ns', 'a note', $2, $3, $4, 'done', 1)`, c.id, c.keywords, c.context, len(c.history)); err != nil {
			t.Fatal(err)
		}
		for i, h := range c.history {
			actor, fields, _ := strings.Cut(h, ": ")
			var cs []string
			for _, f := range strings.Fields(fields) {
				cs = append(cs, fmt.Sprintf(`{"field":%q,"old":"\"\"","new":"\"x\""}`, f))
			}
			if err := pgtest.Exec(ctx, url, `INSERT INTO versions (note_id, ns, version, actor, changes, snapshot)
VALUES ($1, 'ns', $2, $3, $4, '{}')`, c.id, i+1, actor, "["+strings.Join(cs, ",")+"]"); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := mustOpen(t, url, nil)
	if err := s.View(ctx, func(tx amem.Tx) error {
		for _, c := range cases {
			n, err := tx.Note("ns", c.id)
			if err != nil {
				return err
			}
			if n.CallerKeywords != c.callerKeywords || n.CallerContext != c.callerContext {
				t.Errorf("%s (%q): caller keywords %v, context %v; want %v, %v", c.id, c.history,
					n.CallerKeywords, n.CallerContext, c.callerKeywords, c.callerContext)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
