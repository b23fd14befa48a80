package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem/sqlite"
)

func TestCLICheck(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	id := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "--namespace", "ns", "Alice drinks green tea"))
	mustCLI(t, "", "add", "--db", db, "--namespace", "ns", "Bob prefers coffee")
	out := mustCLI(t, "", "check", "--db", db)
	if out != "ok: 1 namespace, 2 notes, 4 versions, 0 links\n" {
		t.Fatalf("check of a sound database: %q", out)
	}

	// A hand-made gap in a note's history.
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DELETE FROM versions WHERE note_id = ? AND version = 1`, id); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	out, _, err = amemCLI(t, "", "check", "--db", db)
	var msg bytes.Buffer
	if code := exitCode(err, &msg); code != exitError {
		t.Fatalf("check of a faulty database: exit %d (%v)", code, err)
	}
	want := fmt.Sprintf("history: note %s (namespace ns) is at version ", id)
	if !strings.Contains(out, want) || !strings.Contains(out, "lacks version 1") || !strings.Contains(out, "1 fault (") {
		t.Fatalf("check printed %q, want %q", out, want)
	}
	if !strings.Contains(msg.String(), "the database has faults: 1 found in "+db) {
		t.Fatalf("stderr %q", msg.String())
	}

	out, _, err = amemCLI(t, "", "check", "--db", db, "--json")
	var r sqlite.Report
	if jerr := json.Unmarshal([]byte(out), &r); jerr != nil || err == nil {
		t.Fatalf("check --json: %v %v\n%s", jerr, err, out)
	}
	if len(r.Faults) != 1 || r.Faults[0].Check != "history" || r.Faults[0].Note != id || r.Notes != 2 {
		t.Fatalf("check --json: %+v", r)
	}

	_, _, err = amemCLI(t, "", "check", "--db", filepath.Join(t.TempDir(), "none.db"))
	if code := exitCode(err, &bytes.Buffer{}); code != exitNotFound {
		t.Fatalf("check of a missing file: exit %d (%v)", code, err)
	}
}

// TestCLIDamaged: a database with overwritten pages is refused by every
// verb, which names the check to run, and check lists the damage.
func TestCLIDamaged(t *testing.T) {
	db := filepath.Join(t.TempDir(), "d.db")
	var lines strings.Builder
	for i := range 300 {
		fmt.Fprintf(&lines, `{"content": "note %d: %s"}`+"\n", i, strings.Repeat("a fairly long memory of something said ", 8))
	}
	mustCLI(t, lines.String(), "import", "--db", db, "--namespace", "d")
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	mid := len(data) / page / 2
	for p := mid; p < mid+4; p++ {
		copy(data[p*page:(p+1)*page], bytes.Repeat([]byte("damaged!"), page/8))
	}
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}

	_, _, err = amemCLI(t, "", "list", "--db", db)
	var msg bytes.Buffer
	if code := exitCode(err, &msg); code != exitError || !strings.Contains(msg.String(), "the database file is damaged") ||
		!strings.Contains(msg.String(), "run 'amem check --db "+db+"'") {
		t.Fatalf("list of a damaged database: exit %d: %s", code, msg.String())
	}
	out, _, err := amemCLI(t, "", "check", "--db", db)
	if code := exitCode(err, &bytes.Buffer{}); code != exitError || !strings.Contains(out, "sqlite: SQLite integrity check: ") {
		t.Fatalf("check of a damaged database: exit %d\n%s", code, out)
	}
}
