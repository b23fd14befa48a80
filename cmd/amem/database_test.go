package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/uselite"
)

// aNoteID is a well-formed ID of no note.
const aNoteID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"

// readVerbs are the verbs that need a database to be there: those that
// read, and those that change notes that must exist. {out} is replaced
// with a file the verb would write.
var readVerbs = [][]string{
	{"list"}, {"search", "x"}, {"show", aNoteID}, {"links", aNoteID}, {"history", aNoteID},
	{"stats"}, {"namespaces"}, {"export"}, {"export", "-o", "{out}"}, {"check"},
	{"keys", "list"}, {"keys", "revoke", "k1"}, {"enrich", "--retry"}, {"enrich", aNoteID},
	{"restore", aNoteID, "1"}, {"delete", aNoteID}, {"edit", aNoteID, "--tags", "x"},
	{"reembed", "-n", "ns"}, {"trash"}, {"restore", aNoteID}, {"purge", aNoteID}, {"purge", "--all"},
	{"delete", "--purge", aNoteID}, {"retention"}, {"retention", "-n", "ns", "--max-age", "90d"},
}

// TestReadVerbsCreateNoDatabase: a verb that reads, given a database that
// is not there, exits 3 naming the path and what chose it, and creates
// nothing (it used to create the directories and an empty database).
func TestReadVerbsCreateNoDatabase(t *testing.T) {
	t.Setenv("AMEM_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, how := range []string{"--db", "AMEM_DB"} {
		for _, verb := range readVerbs {
			t.Run(how+" "+strings.Join(verb, " "), func(t *testing.T) {
				dir := t.TempDir()
				db := filepath.Join(dir, "no", "such", "amem.db")
				args := make([]string, 0, len(verb)+3)
				for _, a := range verb {
					args = append(args, strings.ReplaceAll(a, "{out}", filepath.Join(dir, "out.jsonl")))
				}
				t.Setenv("AMEM_DB", "")
				if how == "--db" {
					args = append(args, "--db", db)
				} else {
					t.Setenv("AMEM_DB", db)
				}
				_, _, err := amemCLI(t, "", args...)
				var msg bytes.Buffer
				if code := exitCode(err, &msg); code != exitNotFound {
					t.Fatalf("exit %d (%v), want %d", code, err, exitNotFound)
				}
				for _, want := range []string{"no database at " + db, "chosen by " + how, "amem add"} {
					if !strings.Contains(msg.String(), want) {
						t.Errorf("message %q lacks %q", msg.String(), want)
					}
				}
				if left, _ := os.ReadDir(dir); len(left) > 0 {
					t.Errorf("created %v", left)
				}
			})
		}
	}
	// The default path is named as such.
	data := t.TempDir()
	t.Setenv("AMEM_DB", "")
	t.Setenv("XDG_DATA_HOME", data)
	_, _, err := amemCLI(t, "", "list")
	if err == nil || !strings.Contains(err.Error(), "chosen by the default") {
		t.Fatalf("list with the default database: %v", err)
	}
	if left, _ := os.ReadDir(data); len(left) > 0 {
		t.Errorf("created %v", left)
	}
}

// TestDatabaseIsADirectory: --db naming a directory is a usage error that
// says so, for verbs that read and those that create (SQLite's words were
// "unable to open database file").
func TestDatabaseIsADirectory(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"list"}, {"add", "x"}, {"keys", "create", "--admin"}} {
		_, _, err := amemCLI(t, "", append(args, "--db", dir)...)
		var msg bytes.Buffer
		if code := exitCode(err, &msg); code != exitUsage || !strings.Contains(msg.String(), dir+" (chosen by --db) is a directory") {
			t.Errorf("%v: exit %d, %q", args, code, msg.String())
		}
	}
}

// TestNamespaces: amem namespaces lists each namespace with its notes;
// list and search of a namespace that is not there say so (exit 3)
// instead of printing nothing, as for an empty one.
func TestNamespaces(t *testing.T) {
	db := filepath.Join(t.TempDir(), "n.db")
	mustCLI(t, "", "add", "--db", db, "-n", "alice", "--curator", "none", "Alice adopted a dog")
	mustCLI(t, "", "add", "--db", db, "-n", "alice", "--curator", "none", "Alice walks Rex")
	mustCLI(t, "", "add", "--db", db, "-n", "bob", "--curator", "none", "Bob plays the cello")
	out := mustCLI(t, "", "namespaces", "--db", db)
	if !strings.Contains(out, "alice  2 notes  lexical") || !strings.Contains(out, "bob  1 note  lexical") {
		t.Fatalf("namespaces:\n%s", out)
	}
	var list []struct {
		Name       string `json:"name"`
		Notes      int    `json:"notes"`
		Embedder   string `json:"embedder"`
		Dimensions int    `json:"dimensions"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "", "namespaces", "--db", db, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "alice" || list[0].Notes != 2 || list[1].Notes != 1 || list[0].Dimensions == 0 {
		t.Fatalf("namespaces --json: %+v", list)
	}
	for _, args := range [][]string{{"list", "-n", "carol"}, {"search", "-n", "carol", "dog"}, {"stats", "-n", "carol"}, {"export", "-n", "carol"}} {
		_, _, err := amemCLI(t, "", append(args, "--db", db)...)
		var msg bytes.Buffer
		if code := exitCode(err, &msg); code != exitNotFound || !strings.Contains(msg.String(), "namespace carol") ||
			!strings.Contains(msg.String(), "'amem namespaces'") {
			t.Errorf("%v: exit %d, %q", args, code, msg.String())
		}
	}
	if out := mustCLI(t, "", "search", "--db", db, "-n", "bob", "cello"); !strings.Contains(out, "Bob plays the cello") {
		t.Errorf("search of bob: %q", out)
	}
}

// fakeUSELite stands in for use-lite (its name and width) so that a test
// can make a database the sentence model would have made, without it.
// Its one vector suits a namespace of one note.
type fakeUSELite struct{}

func (fakeUSELite) Name() string    { return uselite.ModelName }
func (fakeUSELite) Dimensions() int { return uselite.Dimensions }
func (fakeUSELite) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = make([]float32, uselite.Dimensions)
		out[i][0] = 1
	}
	return out, nil
}

// TestReadVerbsLoadNoModel: verbs that embed nothing never read the
// sentence model. The database is use-lite's and the model directory
// empty, with no npm to fetch it, so a verb that loaded the model would
// fail; search, which embeds its query, shows that it does.
func TestReadVerbsLoadNoModel(t *testing.T) {
	db := filepath.Join(t.TempDir(), "u.db")
	st, err := local.OpenStore(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(t.Context(), st, &memory.Options{Embedder: fakeUSELite{}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := mem.Add(t.Context(), amem.AddRequest{Namespace: amem.DefaultNamespace, Content: "Caroline went to a support group"})
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	isolateEmbedder(t) // an empty model directory, no npm
	cli := func(args ...string) error {
		var out, errb bytes.Buffer
		return run(t.Context(), append(args, "--db", db), strings.NewReader(""), &out, &errb)
	}
	for _, args := range [][]string{
		{"list"}, {"show", n.ID}, {"history", n.ID}, {"links", n.ID}, {"stats"}, {"namespaces"},
		{"edit", n.ID, "--tags", "support", "--time", "2023-05-08"}, {"export"}, {"search", "--mode", "lexical", "support"},
	} {
		if err := cli(args...); err != nil {
			t.Errorf("amem %v: %v", args, err)
		}
	}
	if err := cli("search", "support"); err == nil || !strings.Contains(err.Error(), "model") {
		t.Fatalf("search embeds its query, so it needs the model; got %v", err)
	}
}
