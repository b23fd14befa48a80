package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amem-dev/amem/wire"
)

// TestCLICallerAttributes: add --context and --keyword are the caller's,
// kept by the offline curator, marked "(yours)" by show and listed in
// caller_set by show --json; what the curator wrote is not marked.
func TestCLICallerAttributes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	mine := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "--context", "Why we chose SQLite.", "--keyword", "sqlite",
		"Decided: SQLite is the default store"))
	theirs := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "Melanie painted a sunrise at the lake"))

	text := mustCLI(t, "", "show", "--db", db, mine)
	for _, line := range []string{"  context:  Why we chose SQLite. (yours)\n", "  keywords: sqlite (yours)\n"} {
		if !strings.Contains(text, line) {
			t.Errorf("show: no line %q in\n%s", line, text)
		}
	}
	if text := mustCLI(t, "", "show", "--db", db, theirs); strings.Contains(text, "(yours)") {
		t.Errorf("show marks the curator's attributes as yours:\n%s", text)
	}
	var n wire.Note
	if err := json.Unmarshal([]byte(mustCLI(t, "", "show", "--db", db, "--json", mine)), &n); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n.CallerSet, []string{"keywords", "context"}) || n.Context != "Why we chose SQLite." || !slices.Equal(n.Keywords, []string{"sqlite"}) {
		t.Errorf("show --json: caller_set %q, context %q, keywords %q", n.CallerSet, n.Context, n.Keywords)
	}
}
