package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
)

// provenanceCases are notes stored before migrationProvenance, each with
// the fields its history changed version by version (actor: fields), and
// which of its attributes the migration must mark as the caller's. The
// same cases run on PostgreSQL.
var provenanceCases = []struct {
	id, keywords, context string
	history               []string
	callerKeywords        bool
	callerContext         bool
}{
	// The user wrote the context after the curator: it is theirs.
	{"01JAAAAAAAAAAAAAAAAAAAAAA1", `["kw"]`, "Mine.",
		[]string{"user: content keywords", "construct: keywords context", "user: context"}, false, true},
	// Keywords given at add, which the curator left alone.
	{"01JAAAAAAAAAAAAAAAAAAAAAA2", `["mine"]`, "Curated.",
		[]string{"user: content keywords", "construct: context"}, true, false},
	// A content edit cleared both for the curator, which has not run yet.
	{"01JAAAAAAAAAAAAAAAAAAAAAA3", `[]`, "",
		[]string{"user: content", "construct: keywords context", "user: content keywords context"}, false, false},
	// A restore is nobody's claim.
	{"01JAAAAAAAAAAAAAAAAAAAAAA4", `["kw"]`, "Restored.",
		[]string{"user: content", "construct: keywords context", "restore: context"}, false, false},
}

// changesJSON is a version's changes column naming fields.
func changesJSON(fields string) string {
	var cs []string
	for _, f := range strings.Fields(fields) {
		cs = append(cs, fmt.Sprintf(`{"field":%q,"old":"\"\"","new":"\"x\""}`, f))
	}
	return "[" + strings.Join(cs, ",") + "]"
}

func TestMigrationProvenanceReadsHistory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	var stmts []string
	for _, c := range provenanceCases {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO notes (id, ns, content, keywords, context, version, enrich_state, change_seq)
VALUES ('%s', 'ns', 'a note', '%s', '%s', %d, 'done', 1)`, c.id, c.keywords, c.context, len(c.history)))
		for i, h := range c.history {
			actor, fields, _ := strings.Cut(h, ": ")
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO versions (note_id, ns, version, actor, changes, snapshot)
VALUES ('%s', 'ns', %d, '%s', '%s', '{}')`, c.id, i+1, actor, changesJSON(fields)))
		}
	}
	oldDatabase(t, path, slices.Index(migrations, migrationProvenance), stmts...)
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.View(ctx, func(tx amem.Tx) error {
		for _, c := range provenanceCases {
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
