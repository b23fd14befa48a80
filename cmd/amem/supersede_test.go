package main

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/wire"
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

// Issue 30 across real processes, on SQLite and PostgreSQL: one server
// marks a note superseded (PATCH validity), another server's searches
// and a CLI process's see it, and the second server's restore reaches
// the first.
func TestServesShareSupersession(t *testing.T) {
	onEachDB(t, func(t *testing.T, db string) {
		key := createKey(t, db, "--namespace", "home")
		a, b := startServe(t, nil, db), startServe(t, nil, db)
		var old, nw wire.Note
		if code := a.call(t, "POST", "/v1/namespaces/home/notes?wait=true", key, `{"content": "I live in Boston.", "time": "2026-01-10T00:00:00Z"}`, &old); code != 201 {
			t.Fatalf("create: %d", code)
		}
		if code := a.call(t, "POST", "/v1/namespaces/home/notes?wait=true", key, `{"content": "I moved to Seattle in March; I live in Seattle now.", "time": "2026-03-15T00:00:00Z"}`, &nw); code != 201 {
			t.Fatalf("create: %d", code)
		}
		search := func(s *served, extra string) []wire.Result {
			t.Helper()
			var res wire.ResultList
			if code := s.call(t, "GET", "/v1/namespaces/home/search?links=false&q="+url.QueryEscape("where do I live")+extra, key, "", &res); code != 200 {
				t.Fatalf("search: %d", code)
			}
			return res.Results
		}
		if res := search(b, ""); len(res) != 2 || res[0].SupersededBy != "" || res[1].SupersededBy != "" {
			t.Fatalf("before: %+v", res) // b's indexes are loaded from here on
		}
		if code := a.call(t, "PATCH", "/v1/namespaces/home/notes/"+old.ID, key, `{"validity": {"superseded_by": "`+nw.ID+`"}}`, nil); code != 200 {
			t.Fatalf("patch: %d", code)
		}
		for _, mode := range modes {
			if res := search(b, "&mode="+mode); len(res) != 2 || res[0].ID != nw.ID || res[1].ID != old.ID || res[1].SupersededBy != nw.ID {
				t.Fatalf("%s on the other server: %+v", mode, res)
			}
			if res := search(b, "&mode="+mode+"&as_of=2026-02-01"); len(res) != 1 || res[0].ID != old.ID {
				t.Fatalf("%s as of February on the other server: %+v", mode, res)
			}
		}
		out, err := amemCommand(t, nil, "search", "--db", db, "--namespace", "home", "--links-per-hit", "-1", "where do I live").Output()
		if err != nil {
			t.Fatalf("amem search: %v", err)
		}
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 2 || !strings.HasSuffix(lines[1], "[superseded by "+nw.ID+"]") {
			t.Fatalf("amem search:\n%s", out)
		}
		if code := b.call(t, "PATCH", "/v1/namespaces/home/notes/"+old.ID, key, `{"validity": {}}`, nil); code != 200 {
			t.Fatalf("restore: %d", code)
		}
		if res := search(a, "&exclude_superseded=true"); len(res) != 2 {
			t.Fatalf("after the other server's restore: %+v", res)
		}
	})
}
