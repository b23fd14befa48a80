package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

// The CLI shows supersession (issue 30) made by another Memory on the
// same file: search prints "[superseded by ID]" on the old note, below
// the new one; show prints it with the validity's end; --as-of answers
// with what was current then, --exclude-superseded leaves the old note
// out.
func TestCLISupersession(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "s.db")
	old := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "--namespace", "ns", "--time", "2026-01-10", "I live in Boston."))
	nw := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "--namespace", "ns", "--time", "2026-03-15", "I moved to Seattle in March; I live in Seattle now."))

	st, err := sqlite.Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Update(ctx, "ns", old, amem.UpdateRequest{Validity: &amem.Validity{SupersededBy: nw}}); err != nil {
		t.Fatal(err)
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}

	lines := func(args ...string) []string {
		t.Helper()
		out := mustCLI(t, "", append([]string{"search", "--db", db, "--namespace", "ns", "--links-per-hit", "-1"}, args...)...)
		return strings.Split(strings.TrimSpace(out), "\n")
	}
	got := lines("where do I live")
	if len(got) != 2 || !strings.Contains(got[0], nw) || strings.Contains(got[0], "superseded") ||
		!strings.Contains(got[1], old) || !strings.HasSuffix(got[1], "[superseded by "+nw+"]") {
		t.Fatalf("search:\n%s", strings.Join(got, "\n"))
	}
	if got := lines("--as-of", "2026-02-01", "where do I live"); len(got) != 1 || !strings.Contains(got[0], old) || strings.Contains(got[0], "superseded") {
		t.Fatalf("search --as-of:\n%s", strings.Join(got, "\n"))
	}
	if got := lines("--exclude-superseded", "where do I live"); len(got) != 1 || !strings.Contains(got[0], nw) {
		t.Fatalf("search --exclude-superseded:\n%s", strings.Join(got, "\n"))
	}
	if out := mustCLI(t, "", "show", "--db", db, old); !strings.Contains(out, "superseded by "+nw+" (valid until 2026-03-15T00:00:00Z)") {
		t.Fatalf("show:\n%s", out)
	}
	if _, _, err := amemCLI(t, "", "search", "--db", db, "--as-of", "soon", "x"); err == nil {
		t.Fatal("--as-of soon accepted")
	}
}
