package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/amem-dev/amem/internal/fakellm"
	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/wire"
)

// Moving a memory between SQLite and PostgreSQL: `amem export --db A |
// amem import --db B` gives B exactly A's export, both ways.

// exportOf is `amem export --db db`.
func exportOf(t *testing.T, db string) string {
	t.Helper()
	return mustCLI(t, "", "export", "--db", db)
}

// pipeExport runs `amem export --db from | amem import --db to` as two
// processes joined by a pipe, as people type it.
func pipeExport(t *testing.T, from, to string) {
	t.Helper()
	exp := amemCommand(t, nil, "export", "--db", from)
	imp := amemCommand(t, nil, "import", "--db", to)
	r, w := io.Pipe()
	exp.Stdout, imp.Stdin = w, r
	var expErr, impOut bytes.Buffer
	exp.Stderr, imp.Stdout, imp.Stderr = &expErr, &impOut, &impOut
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	if err := exp.Run(); err != nil {
		t.Fatalf("amem export --db %s: %v\n%s", from, err, expErr.String())
	}
	w.Close()
	if err := imp.Wait(); err != nil {
		t.Fatalf("amem import --db %s: %v\n%s", to, err, impOut.String())
	}
	if !strings.Contains(impOut.String(), "restored") {
		t.Fatalf("amem import: %s", impOut.String())
	}
}

// buildMemory fills db with what an export must carry: several
// namespaces; notes enriched by a model (links, evolved neighbours,
// construction and evolution versions), one failed (error, attempts, due
// time), one restored to its first version, one deleted; keywords, tags
// and metadata given by the caller; event times with nanoseconds and an
// offset.
func buildMemory(t *testing.T, db string) {
	t.Helper()
	model := &fakellm.Server{}
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("zqfail")) {
			http.Error(w, `{"error": {"message": "no", "type": "invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		model.ServeHTTP(w, r)
	}))
	defer llm.Close()
	t.Setenv("AMEM_LLM", "openai:"+fakellm.Model)
	t.Setenv("OPENAI_BASE_URL", llm.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")

	lines := `{"content": "Caroline went to an LGBTQ support group", "time": "2023-05-07T13:56:00.123456789Z", "tags": ["community"], "metadata": {"session": "1", "speaker": "Caroline"}}
{"content": "Caroline is researching adoption agencies", "time": "2023-05-25T08:00:00.000000001+02:00", "keywords": ["adoption"]}
{"content": "Melanie painted a sunrise over the lake", "namespace": "melanie", "time": "2022-12-31T23:59:59.999999999Z"}
{"content": "Melanie ran a charity race for mental health", "namespace": "melanie"}
`
	mustCLI(t, lines, "import", "--db", db, "--namespace", "caroline")
	id := strings.TrimSpace(mustCLI(t, "", "add", "Caroline attended a support group for adoption", "--db", db, "--namespace", "caroline",
		"--time", "2023-06-01T10:00:00.5-07:00", "--tag", "family", "--meta", "source=chat"))
	mustCLI(t, "", "restore", "--db", db, id, "1")
	gone := strings.TrimSpace(mustCLI(t, "", "add", "Caroline mentioned a note to be deleted", "--db", db, "--namespace", "caroline"))
	mustCLI(t, "", "delete", "--db", db, gone)
	mustCLI(t, "", "add", "Melanie's model call fails on this one zqfail", "--db", db, "--namespace", "melanie")
	mustCLI(t, "", "add", "A note of a third namespace", "--db", db, "--namespace", "team:ops@example.com")
}

func TestExportImportBetweenStores(t *testing.T) {
	for _, tc := range []struct {
		name        string
		origin, via func(t *testing.T) string
	}{
		{"sqlite to postgres and back", sqliteDB, postgresDB},
		{"postgres to sqlite and back", postgresDB, sqliteDB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			origin, via, back := tc.origin(t), tc.via(t), tc.origin(t)
			buildMemory(t, origin)
			want := exportOf(t, origin)
			for _, s := range []string{
				`"state":"done"`, `"state":"failed"`, `"actor":"construct"`, `"actor":"evolve"`, `"actor":"restore"`,
				`"target":`, `"metadata":{"session":"1","speaker":"Caroline"}`, `"namespace":"team:ops@example.com"`,
				`"event_time":"2023-05-07T13:56:00.123456789Z"`, `"event_time":"2022-12-31T23:59:59.999999999Z"`,
				`"event_time":"2023-05-25T06:00:00.000000001Z"`, `"due_at":`,
			} {
				if !strings.Contains(want, s) {
					t.Fatalf("the origin's export lacks %s: the test shows less than it should\n%s", s, want)
				}
			}
			pipeExport(t, origin, via)
			if got := exportOf(t, via); got != want {
				t.Fatalf("the export of the import differs from the original:\n%s", lineDiff(want, got))
			}
			if got, want := statsOf(t, via), statsOf(t, origin); !reflect.DeepEqual(got, want) {
				t.Errorf("stats after the import: %+v, want %+v", got, want)
			}
			pipeExport(t, via, back)
			if got := exportOf(t, back); got != want {
				t.Fatalf("the export after the way back differs from the original:\n%s", lineDiff(want, got))
			}
			// Importing again changes nothing.
			out := mustCLI(t, want, "import", "--db", via)
			if !strings.Contains(out, "restored 0 notes") {
				t.Errorf("a second import: %s", out)
			}
			if got := exportOf(t, via); got != want {
				t.Fatalf("a second import changed the export:\n%s", lineDiff(want, got))
			}
		})
	}
}

// statsOf is `amem stats --json` less the model tokens, which an export
// does not carry: they count what enrichment cost where it ran.
func statsOf(t *testing.T, db string) []wire.Stats {
	t.Helper()
	var st []wire.Stats
	if err := json.Unmarshal([]byte(mustCLI(t, "", "stats", "--db", db, "--json")), &st); err != nil {
		t.Fatal(err)
	}
	for i := range st {
		st[i].Usage, st[i].Tokens = nil, wire.Usage{}
	}
	return st
}

func sqliteDB(t *testing.T) string   { return filepath.Join(t.TempDir(), "memory.db") }
func postgresDB(t *testing.T) string { return pgtest.URL(t) }

// lineDiff shows the first line that differs between two exports.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + wl + "\n  got  " + gl
		}
	}
	return "(same lines)"
}
