package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/wire"
)

// amem retention shows, sets, applies and removes a namespace's policy;
// stats show what it would remove; restore brings a note back.
func TestCLIRetention(t *testing.T) {
	cliRetention(t, filepath.Join(t.TempDir(), "r.db"))
}

// The same on PostgreSQL: the policy is kept in its retention table.
func TestCLIRetentionPostgres(t *testing.T) {
	cliRetention(t, pgtest.URL(t))
}

func cliRetention(t *testing.T, db string) {
	var ids []string
	for _, at := range []string{"2001-01-01", "2002-01-01", "2003-01-01"} {
		ids = append(ids, strings.TrimSpace(mustCLI(t, "", "add", "said on "+at, "--time", at, "--db", db, "-n", "ns")))
	}
	mustCLI(t, "", "add", "another namespace", "--time", "2000-01-01", "--db", db, "-n", "other")
	if out := mustCLI(t, "", "retention", "--db", db, "-n", "ns"); !strings.Contains(out, "ns: none") {
		t.Fatalf("no policy: %q", out)
	}
	for _, bad := range [][]string{
		{"--max-age", "5m"}, {"--max-age", "soon"}, {"--max-notes", "-1"}, {"--off", "--max-notes", "2"},
	} {
		if _, _, err := amemCLI(t, "", append([]string{"retention", "--db", db, "-n", "ns"}, bad...)...); exitCode(err, &bytes.Buffer{}) != exitUsage {
			t.Errorf("retention %v: %v, want a usage error", bad, err)
		}
	}
	out := mustCLI(t, "", "retention", "--db", db, "-n", "ns", "--max-notes", "2")
	if !strings.Contains(out, "all but the newest 2") || !strings.Contains(out, "1 note would go to the trash now, the oldest "+ids[0]) {
		t.Fatalf("policy set: %q", out)
	}
	// A flag left out keeps its value.
	var p wire.Retention
	if err := json.Unmarshal([]byte(mustCLI(t, "", "retention", "--db", db, "-n", "ns", "--max-age", "36500d", "--json")), &p); err != nil {
		t.Fatal(err)
	}
	if p.MaxNotes != 2 || p.MaxAge != "36500d" || p.Due != 1 || p.OldestDue == nil || p.OldestDue.ID != ids[0] {
		t.Fatalf("policy %+v", p)
	}
	if out := mustCLI(t, "", "stats", "--db", db, "-n", "ns"); !strings.Contains(out, "retention: ") || !strings.Contains(out, "1 note would go") {
		t.Fatalf("stats: %q", out)
	}
	_, stderr, err := amemCLI(t, "", "retention", "--db", db, "-n", "ns", "--apply")
	if err != nil || !strings.Contains(stderr, "moved 1 note to the trash") {
		t.Fatalf("apply: %q, %v", stderr, err)
	}
	if list := mustCLI(t, "", "trash", "--db", db, "-n", "ns"); !strings.Contains(list, ids[0]) {
		t.Fatalf("trash after apply: %q", list)
	}
	if list := mustCLI(t, "", "list", "--db", db, "-n", "other"); !strings.Contains(list, "another namespace") {
		t.Fatalf("other namespace after apply: %q", list)
	}
	if out := mustCLI(t, "", "retention", "--db", db, "-n", "ns", "--off"); !strings.Contains(out, "ns: none") {
		t.Fatalf("off: %q", out)
	}
	mustCLI(t, "", "restore", "--db", db, ids[0])
	if list := mustCLI(t, "", "list", "--db", db, "-n", "ns"); !strings.Contains(list, "said on 2001") {
		t.Fatalf("restored note not listed: %q", list)
	}
}
