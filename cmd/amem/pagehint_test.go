package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestListPagingHintKeepsFlags follows the "more:" hints from the first
// page to the last: each names the namespace, the state filter, the limit
// and the database, so the pages together are the namespace's notes,
// each once, and none of another namespace.
func TestListPagingHintKeepsFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	var want []string
	for i := range 5 {
		want = append(want, strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "-n", "alice", fmt.Sprintf("note %d about alice", i))))
	}
	mustCLI(t, "", "add", "--db", db, "note in the default namespace")
	args := []string{"list", "--db", db, "--namespace", "alice", "--state", "done", "--limit", "2"}
	var got []string
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatalf("more than 5 pages of 2 for 5 notes: %v", got)
		}
		out, stderr, err := amemCLI(t, "", args...)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(out) {
			got = append(got, strings.Fields(line)[0])
		}
		hint, ok := strings.CutPrefix(strings.TrimSpace(stderr), "more: ")
		if !ok {
			break
		}
		for _, flag := range []string{"--namespace alice", "--state done", "--limit 2", "--db " + shellQuote(db)} {
			if !strings.Contains(hint, flag) {
				t.Fatalf("hint %q lacks %q", hint, flag)
			}
		}
		words := strings.Fields(hint)
		if words[0] != "amem" || words[1] != "list" || strings.ContainsAny(db, " '") {
			t.Fatalf("hint %q: not an amem list line this test can split", hint)
		}
		args = words[1:]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages gave %v, want %v", got, want)
	}
}

func TestNextPageQuotesAndRepeats(t *testing.T) {
	a := &app{}
	root := a.rootCmd()
	var hint string
	for _, c := range root.Commands() {
		if c.Name() == "list" {
			c.RunE = func(cmd *cobra.Command, _ []string) error { hint = nextPage(cmd, "01LAST"); return nil }
		}
	}
	root.SetArgs([]string{"list", "--db", "/tmp/my db's.db", "-n", "x", "--json", "--after", "01FIRST"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	want := `amem list --db '/tmp/my db'\''s.db' --json --namespace x --after 01LAST`
	if hint != want {
		t.Fatalf("hint\n%s\nwant\n%s", hint, want)
	}
}
