package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// oldDatabase makes a database at schema version v, as this package made
// it then, and runs stmts in it: the statements of today's package may
// name columns that it lacks.
func oldDatabase(t *testing.T, path string, v int, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := openPool(dsn(path, (*Options)(nil).withDefaults(), false), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := migrations
	migrations = all[:v]
	err = migrate(ctx, db)
	migrations = all
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A database made before migration 5 loses its FTS5 table and triggers,
// and nothing else: its notes, and writes after it, are as before.
func TestMigration5DropsFullText(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	n := amem.Note{ID: "01JAAAAAAAAAAAAAAAAAAAAAAA", Namespace: "ns", Content: "kept through the migration",
		IngestTime: time.Now(), UpdatedAt: time.Now(), Version: 1, Embedding: []float32{1, 0}}
	oldDatabase(t, path, 4, `INSERT INTO notes (id, ns, content, version, enrich_state, change_seq)
VALUES ('`+n.ID+`', 'ns', 'kept through the migration', 1, 'pending', 1)`)

	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var left int
	if err := s.read.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name LIKE 'notes_fts%'`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d full-text tables and triggers left", left)
	}
	n2 := n
	n2.ID, n2.Content = "01JAAAAAAAAAAAAAAAAAAAAAAB", "written after it"
	if err := s.Update(ctx, func(tx amem.Tx) error {
		if err := tx.InsertNote(n2); err != nil {
			return err
		}
		n.Content = "edited after it"
		if err := tx.UpdateNote(n, 1); err != nil {
			return err
		}
		return tx.DeleteNote("ns", n2.ID)
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.View(ctx, func(tx amem.Tx) error {
		got, err := tx.Note("ns", n.ID)
		if err == nil && got.Content != "edited after it" {
			t.Errorf("content %q", got.Content)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var version int
	if err := s.read.db.QueryRowContext(ctx, selectSchemaVersion).Scan(&version); err != nil || version != len(migrations) {
		t.Errorf("schema version %d, %v; want %d", version, err, len(migrations))
	}
}

// A note stored before curator tags were kept counts every tag as the
// caller's: the migration can't tell which the curator added.
func TestMigrationCuratorTagsKeepsOldTagsAsCallers(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	const id = "01JAAAAAAAAAAAAAAAAAAAAAAA"
	oldDatabase(t, path, slices.Index(migrations, migrationCuratorTags),
		`INSERT INTO notes (id, ns, content, tags, tag_keys, version, enrich_state, change_seq)
VALUES ('`+id+`', 'ns', 'tagged before', '["Work","pets"]', '["work","pets"]', 1, 'done', 1)`)
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.View(ctx, func(tx amem.Tx) error {
		n, err := tx.Note("ns", id)
		if err != nil {
			return err
		}
		if n.CuratorTags != nil || !slices.Equal(n.CallerTags(), []string{"Work", "pets"}) {
			t.Errorf("curator tags %v, caller tags %v; want none and [Work pets]", n.CuratorTags, n.CallerTags())
		}
		ids, err := tx.MatchIDs("ns", amem.Filter{Tags: []string{"pets"}, TagSource: amem.TagSourceCaller})
		if err != nil {
			return err
		}
		if !slices.Equal(ids, []string{id}) {
			t.Errorf("caller tag pets matches %v, want [%s]", ids, id)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
