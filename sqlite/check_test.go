package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/sqlite"
)

// seedCheck writes a small sound database: namespaces a and b (3
// dimensions), notes a1 (version 3, with its history), a2, a3 and b1,
// links a1->a2 and a2->a3. It returns the path, the store closed.
func seedCheck(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := tempPath(t)
	s, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Update(ctx, func(tx amem.Tx) error {
		for _, ns := range []string{"a", "b"} {
			if err := tx.PutNamespace(amem.NamespaceInfo{Name: ns, Embedder: "e", Dimensions: 3, CreatedAt: time.Now()}); err != nil {
				return err
			}
		}
		for _, n := range []struct {
			ns, id, text string
			version      int
		}{
			{"a", "a1", "Alice drinks green tea every morning", 3},
			{"a", "a2", "Bob prefers coffee", 1},
			{"a", "a3", "The meeting moved to Paris", 1},
			{"b", "b1", "another namespace entirely", 1},
		} {
			note := testNote(n.ns, n.id, n.text)
			note.Version = n.version
			if err := tx.InsertNote(note); err != nil {
				return err
			}
			for v := 1; v <= n.version; v++ {
				if err := tx.AddVersion(amem.Version{NoteID: n.id, Namespace: n.ns, Version: v, Actor: amem.ActorUser}); err != nil {
					return err
				}
			}
		}
		for _, l := range [][2]string{{"a1", "a2"}, {"a2", "a3"}} {
			if err := tx.PutLink("a", amem.Link{Source: l[0], Target: l[1], Strength: 0.5}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// rawExec runs statements on the file outside the store, with foreign
// keys off, as a bug or a hand edit would.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// mustCheck runs Check and returns its faults as "check: message" lines.
func mustCheck(t *testing.T, path string) (sqlite.Report, []string) {
	t.Helper()
	r, err := sqlite.Check(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range r.Faults {
		lines = append(lines, f.String())
	}
	if r.OK() != (len(lines) == 0) {
		t.Errorf("OK() is %v with faults %q", r.OK(), lines)
	}
	return r, lines
}

// wantFaults fails unless the faults are exactly one per want, each
// holding its want.
func wantFaults(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("faults:\n%s\nwant %d: %q", strings.Join(got, "\n"), len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("fault %d is %q, want it to hold %q", i, got[i], w)
		}
	}
}

func TestCheckSound(t *testing.T) {
	path := seedCheck(t)
	r, faults := mustCheck(t, path)
	wantFaults(t, faults)
	if r.Namespaces != 2 || r.Notes != 4 || r.Versions != 6 || r.Links != 2 {
		t.Fatalf("counts %+v", r)
	}
	// Check changes nothing, and the store still opens and checks clean.
	s := mustOpen(t, path, nil)
	if r2, err := s.Check(context.Background()); err != nil || !r2.OK() || r2.Notes != 4 {
		t.Fatalf("Store.Check: %+v, %v", r2, err)
	}
}

func TestCheckMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	_, err := sqlite.Check(context.Background(), path)
	if !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("Check of a missing file: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("Check created the file")
	}
}

func TestCheckHistory(t *testing.T) {
	path := seedCheck(t)
	rawExec(t, path,
		`DELETE FROM versions WHERE note_id = 'a1' AND version = 2`,
		`DELETE FROM versions WHERE note_id = 'a3'`,
		`INSERT INTO versions (note_id, ns, version, actor, snapshot) VALUES ('a2', 'a', 4, 'user', '{}')`,
		`INSERT INTO versions (note_id, ns, version, actor, snapshot) VALUES ('gone', 'a', 1, 'user', '{}')`,
		`INSERT INTO versions (note_id, ns, version, actor, snapshot) VALUES ('b1', 'a', 7, 'user', '{}')`,
		// b1 as an import without history leaves at version 2, then
		// edited: its history starts at 2, as it should.
		`UPDATE notes SET version = 3 WHERE id = 'b1'`,
		`UPDATE versions SET version = 2, actor = 'import' WHERE note_id = 'b1' AND ns = 'b'`,
		`INSERT INTO versions (note_id, ns, version, actor, snapshot) VALUES ('b1', 'b', 3, 'user', '{}')`,
	)
	_, faults := mustCheck(t, path)
	wantFaults(t, faults,
		"history: note a1 (namespace a) is at version 3, but its history lacks version 2",
		"history: note a2 (namespace a) is at version 1, but its history has version 4 beyond it",
		"history: note a3 (namespace a) is at version 1, but it has no history",
		"history: 1 history row of namespace a belong to note b1, which is in namespace b",
		"history: 1 history row of namespace a belong to note gone, which does not exist",
	)
}

func TestCheckLinks(t *testing.T) {
	path := seedCheck(t)
	rawExec(t, path,
		`INSERT INTO links (ns, source, target, strength) VALUES ('a', 'a1', 'missing', 0.5)`,
		`INSERT INTO links (ns, source, target, strength) VALUES ('a', 'a3', 'b1', 0.5)`,
		`INSERT INTO links (ns, source, target, strength) VALUES ('a', 'a3', 'a3', 0.5)`,
		`UPDATE links SET strength = 1.5 WHERE source = 'a2'`,
	)
	_, faults := mustCheck(t, path)
	wantFaults(t, faults,
		"links: link a1 -> missing (namespace a): its target missing does not exist",
		"links: link a2 -> a3 (namespace a): its strength 1.5 is outside [0, 1]",
		"links: link a3 -> a3 (namespace a): it links a note to itself",
		"links: link a3 -> b1 (namespace a): its target is a note of namespace b: links may not cross namespaces",
	)
}

func TestCheckNamespaces(t *testing.T) {
	path := seedCheck(t)
	rawExec(t, path,
		`UPDATE notes SET ns = 'ghost' WHERE id = 'b1'`,
		`UPDATE versions SET ns = 'ghost' WHERE note_id = 'b1'`,
		`UPDATE notes SET embedding = zeroblob(16) WHERE id = 'a2'`,
		`UPDATE notes SET embedding = zeroblob(10) WHERE id = 'a3'`,
	)
	_, faults := mustCheck(t, path)
	wantFaults(t, faults,
		"namespaces: namespace ghost holds 1 note but is not recorded",
		"namespaces: note a2 has a 4-dimension embedding, but namespace a has 3 dimensions",
		"namespaces: note a3 (namespace a) has an embedding of 10 bytes",
		"feed: namespace ghost has notes but no change feed",
	)
}

func TestCheckNoteFields(t *testing.T) {
	path := seedCheck(t)
	rawExec(t, path,
		`UPDATE notes SET keywords = '{"not": "a list"}', metadata = 'nonsense' WHERE id = 'a2'`,
	)
	_, faults := mustCheck(t, path)
	wantFaults(t, faults,
		"notes: note a2 (namespace a): its keywords are a JSON object, not an array; its metadata are not valid JSON",
	)
}

// TestCheckDamaged overwrites pages in the middle of a database: Open
// refuses it, saying what to run, and Check lists what SQLite found.
func TestCheckDamaged(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t)
	s, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := ids(300)
	err = s.Update(ctx, func(tx amem.Tx) error {
		if err := tx.PutNamespace(amem.NamespaceInfo{Name: "d", Embedder: "e", Dimensions: 256}); err != nil {
			return err
		}
		for i, id := range id {
			n := testNote("d", id, strings.Repeat(fmt.Sprintf("note %d of the damaged store ", i), 10))
			n.Embedding = make([]float32, 256)
			if err := tx.InsertNote(n); err != nil {
				return err
			}
			if err := tx.AddVersion(amem.Version{NoteID: id, Namespace: "d", Version: 1, Actor: amem.ActorUser}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := len(data) / page
	if pages < 40 {
		t.Fatalf("only %d pages", pages)
	}
	junk := []byte(strings.Repeat("damaged!", page/8))
	for p := pages / 2; p < pages/2+4; p++ {
		copy(data[p*page:], junk)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}

	_, err = sqlite.Open(ctx, path, nil)
	if !errors.Is(err, sqlite.ErrDamaged) {
		t.Fatalf("Open of a damaged file: %v", err)
	}
	for _, want := range []string{"damaged", "cannot be read", "run 'amem check --db " + path + "'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open's error %q lacks %q", err, want)
		}
	}
	_, faults := mustCheck(t, path)
	if len(faults) == 0 || !strings.HasPrefix(faults[0], "sqlite: SQLite integrity check: ") {
		t.Fatalf("Check of a damaged file: %q", faults)
	}
	t.Logf("Open: %v\nCheck: %s", err, strings.Join(faults, "\n"))
}

func TestOpenNotADatabase(t *testing.T) {
	path := tempPath(t)
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sqlite.Open(context.Background(), path, nil)
	if !errors.Is(err, sqlite.ErrDamaged) || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Fatalf("Open: %v", err)
	}
	r, faults := mustCheck(t, path)
	if len(faults) != 1 || !strings.Contains(faults[0], "the database cannot be read") || r.OK() {
		t.Fatalf("Check: %q", faults)
	}
}

func TestCheckNotAmem(t *testing.T) {
	path := tempPath(t)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, faults := mustCheck(t, path)
	wantFaults(t, faults, "sqlite: this is not an amem database: ")
	if !strings.Contains(faults[0], "no such table: schema_migrations") {
		t.Errorf("fault %q", faults[0])
	}

	path = seedCheck(t)
	rawExec(t, path, `INSERT INTO schema_migrations (version, applied_at) VALUES (1000, 0)`)
	if _, err := sqlite.Check(context.Background(), path); !errors.Is(err, sqlite.ErrSchemaTooNew) {
		t.Fatalf("Check of a newer schema: %v", err)
	}
}

func TestCheckFeedAndQueue(t *testing.T) {
	path := seedCheck(t)
	rawExec(t, path,
		`UPDATE notes SET change_seq = 99 WHERE id = 'a2'`,
		`INSERT INTO tombstones (ns, seq, id) VALUES ('a', 1, 'a3')`,
		`DELETE FROM feeds WHERE ns = 'b'`,
		`UPDATE notes SET enrich_state = 'done' WHERE id = 'a1'`,
		`UPDATE notes SET due_at = NULL WHERE id = 'a3'`,
	)
	_, faults := mustCheck(t, path)
	wantFaults(t, faults,
		"feed: note a2 is change 99, past its namespace's feed head 1",
		"feed: namespace b has notes but no change feed",
		"feed: note a3 exists but its deletion is change 1, after its own change 1",
		"queue: note a1 is done but still queued for enrichment",
		"queue: note a3 is pending but not queued",
	)
}
