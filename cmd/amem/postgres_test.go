package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/postgres"
)

// inTempDir runs the test in a new working directory, so that a URL
// mistaken for a path would show up as a directory there.
func inTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

// wantEmptyDir fails if anything was created in dir.
func wantEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s created in the working directory", e.Name())
	}
}

func TestDBURLKeysInPostgres(t *testing.T) {
	dir := inTempDir(t)
	for _, scheme := range []string{"postgres", "postgresql"} {
		t.Run(scheme, func(t *testing.T) {
			url := pgtest.URL(t)
			url = scheme + strings.TrimPrefix(url, "postgres")
			token := strings.TrimSpace(mustCLI(t, "", "keys", "create", "--db", url, "--namespace", "alice", "--name", "ci"))
			if token == "" {
				t.Fatal("keys create printed no key")
			}
			st, err := postgres.Open(context.Background(), url, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			keys, err := st.Keys(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) != 1 || keys[0].Name != "ci" || !slices.Equal(keys[0].Namespaces, []string{"alice"}) {
				t.Fatalf("keys in PostgreSQL: %+v, want the one created", keys)
			}
			if out := mustCLI(t, "", "keys", "list", "--db", url); !strings.Contains(out, keys[0].ID) {
				t.Errorf("keys list does not show %s:\n%s", keys[0].ID, out)
			}
		})
	}
	wantEmptyDir(t, dir)
}

// TestDBURLEveryVerb: notes added with --db postgres://... are listed and
// found by a later process, as with a file; AMEM_DB and the configuration
// file select it too.
func TestDBURLEveryVerb(t *testing.T) {
	dir := inTempDir(t)
	url := pgtest.URL(t)
	id := strings.TrimSpace(mustCLI(t, "", "add", "Caroline went to a support group", "--db", url, "--namespace", "ns"))
	if len(id) != 26 {
		t.Fatalf("add printed %q, want an ID", id)
	}
	t.Setenv("AMEM_DB", url)
	mustCLI(t, "", "add", "Melanie painted a sunrise", "--namespace", "ns")
	cfg := filepath.Join(t.TempDir(), "config.json")
	b, _ := json.Marshal(map[string]string{"db": url})
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AMEM_DB", "")
	out := mustCLI(t, "", "search", "support group", "--config", cfg, "--namespace", "ns", "--json")
	if !strings.Contains(out, id) {
		t.Errorf("search through the configuration file's URL does not find %s:\n%s", id, out)
	}
	if out := mustCLI(t, "", "list", "--db", url, "--namespace", "ns"); !strings.Contains(out, "Melanie") {
		t.Errorf("list does not show the note added through AMEM_DB:\n%s", out)
	}
	if out := mustCLI(t, "", "config", "--db", "postgres://amem:secret@db.invalid/amem"); strings.Contains(out, "secret") {
		t.Errorf("amem config shows the database password:\n%s", out)
	}
	wantEmptyDir(t, dir)
}

func TestDBURLUnknownScheme(t *testing.T) {
	dir := inTempDir(t)
	for _, args := range [][]string{
		{"keys", "create", "--namespace", "alice"},
		{"add", "a note"},
		{"list"},
		{"check"},
	} {
		for _, db := range []string{"foo://x", "mysql://u:secret@host/db", "FILE:///tmp/a.db"} {
			_, stderr, err := amemCLI(t, "", append(args, "--db", db)...)
			if err == nil {
				t.Fatalf("amem %s --db %s succeeded", strings.Join(args, " "), db)
			}
			msg := err.Error() + stderr
			if !strings.Contains(msg, "postgres://") || !strings.Contains(msg, "unsupported scheme") {
				t.Errorf("amem %s --db %s: %v; want an error naming the supported schemes", args[0], db, err)
			}
			if strings.Contains(msg, "secret") {
				t.Errorf("the error shows the password: %v", err)
			}
		}
	}
	wantEmptyDir(t, dir)
}

func TestCheckRefusesPostgres(t *testing.T) {
	_, _, err := amemCLI(t, "", "check", "--db", "postgres://amem@db.invalid/amem")
	if err == nil || !strings.Contains(err.Error(), "SQLite file") {
		t.Fatalf("amem check --db postgres://...: %v, want an error saying it needs a SQLite file", err)
	}
}
