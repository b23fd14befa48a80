package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// amem edit marks a note superseded by a newer one (search then lists the
// newer first and the old one marked), makes it current again, and hands
// a context back to the curator; the three flags of validity refuse to be
// mixed with --current.
func TestEditValidityAndGiveBack(t *testing.T) {
	db := filepath.Join(t.TempDir(), "v.db")
	old := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "-n", "me", "--time", "2026-01-01", "I'm allergic to penicillin."))
	newer := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "-n", "me", "--time", "2026-03-01", "--context", "Tested at the clinic.", "I'm not allergic to penicillin after all."))

	mustCLI(t, "", "edit", "--db", db, old, "--superseded-by", newer, "--reason", "tested negative")
	var hits []struct {
		ID           string `json:"id"`
		SupersededBy string `json:"superseded_by"`
	}
	out := mustCLI(t, "", "search", "--db", db, "-n", "me", "--json", "--link-budget", "-1", "--mode", "lexical", "allergic to penicillin")
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatal(err, out)
	}
	if len(hits) != 2 || hits[0].ID != newer || hits[1].ID != old || hits[1].SupersededBy != newer {
		t.Fatalf("after --superseded-by: %+v; want the newer note first and the old one marked", hits)
	}
	if h := mustCLI(t, "", "history", "--db", db, old); !strings.Contains(h, "tested negative") || !strings.Contains(h, newer) {
		t.Errorf("history lacks the reason or the superseding note:\n%s", h)
	}

	mustCLI(t, "", "edit", "--db", db, old, "--current")
	var n struct {
		SupersededBy string `json:"superseded_by"`
	}
	json.Unmarshal([]byte(mustCLI(t, "", "show", "--db", db, "--json", old)), &n)
	if n.SupersededBy != "" {
		t.Errorf("after --current the note is still superseded by %s", n.SupersededBy)
	}

	var back struct {
		CallerSet []string `json:"caller_set"`
	}
	json.Unmarshal([]byte(mustCLI(t, "", "edit", "--db", db, "--json", newer, "--give-back", "context")), &back)
	if len(back.CallerSet) != 0 {
		t.Errorf("after --give-back context the caller still owns %v", back.CallerSet)
	}

	_, _, err := amemCLI(t, "", "edit", "--db", db, old, "--current", "--superseded-by", newer)
	if code := exitCode(err, io.Discard); code != 2 {
		t.Errorf("--current with --superseded-by: exit %d (%v), want 2", code, err)
	}
}
