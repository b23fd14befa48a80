package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// A database made before migration 5 loses its FTS5 table and triggers,
// and nothing else: its notes, and writes after it, are as before.
func TestMigration5DropsFullText(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	all := migrations
	migrations = all[:4]
	// A program at schema 4 prepared none of the later tables' statements.
	restore := withoutStatements(recordEvent, claimEvents, anyDueEvent)
	s, err := Open(ctx, path, nil)
	restore()
	if err != nil {
		migrations = all
		t.Fatal(err)
	}
	n := amem.Note{ID: "01JAAAAAAAAAAAAAAAAAAAAAAA", Namespace: "ns", Content: "kept through the migration",
		IngestTime: time.Now(), UpdatedAt: time.Now(), Version: 1, Embedding: []float32{1, 0}}
	err = s.Update(ctx, func(tx amem.Tx) error { return tx.InsertNote(n) })
	s.Close()
	migrations = all
	if err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, path, nil)
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

// withoutStatements drops queries from the statements Open prepares,
// until the returned func puts them back: to open a database as a
// program older than those statements' tables would.
func withoutStatements(queries ...string) (restore func()) {
	reads, writes := readQueries, writeOnlyQueries
	drop := func(list []string) []string {
		return slices.DeleteFunc(slices.Clone(list), func(q string) bool { return slices.Contains(queries, q) })
	}
	readQueries, writeOnlyQueries = drop(reads), drop(writes)
	return func() { readQueries, writeOnlyQueries = reads, writes }
}
