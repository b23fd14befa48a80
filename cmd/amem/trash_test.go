package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// delete, trash, restore and purge through the CLI: a deleted note is
// gone from show and search and says how to get it back; restore brings
// it back with its history, found by search again; purge is final.
func TestCLITrash(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	add := func(text string) string {
		return strings.TrimSpace(mustCLI(t, "", "add", text, "--db", db, "-n", "ns"))
	}
	keeper, cabin := add("the lighthouse keeper retires in June"), add("a cabin in the mountains")
	mustCLI(t, "", "restore", "--db", db, keeper, "1") // one more version for the history to keep
	found := func(id string) bool {
		var res []result
		if err := json.Unmarshal([]byte(mustCLI(t, "", "search", "--db", db, "-n", "ns", "--json", "lighthouse keeper")), &res); err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.ID == id {
				return true
			}
		}
		return false
	}
	history := func(id string) int {
		var hist []map[string]any
		if err := json.Unmarshal([]byte(mustCLI(t, "", "history", "--db", db, "--json", id)), &hist); err != nil {
			t.Fatal(err)
		}
		return len(hist)
	}
	versions := history(keeper)

	out := mustCLI(t, "", "delete", "--db", db, keeper)
	if !strings.Contains(out, "trash") || !strings.Contains(out, "amem restore "+keeper) {
		t.Errorf("delete says %q; want where the note went and how to get it back", out)
	}
	if _, _, err := amemCLI(t, "", "show", "--db", db, keeper); exitCode(err, &bytes.Buffer{}) != exitNotFound {
		t.Fatalf("show of a trashed note: %v", err)
	}
	if found(keeper) {
		t.Fatal("search finds a trashed note")
	}
	if list := mustCLI(t, "", "trash", "--db", db, "-n", "ns"); !strings.Contains(list, keeper) || !strings.Contains(list, "June") {
		t.Fatalf("trash lists %q", list)
	}
	if list := mustCLI(t, "", "trash", "--db", db, "-n", "other"); strings.Contains(list, keeper) {
		t.Fatalf("another namespace's trash lists %q", list)
	}

	if out := mustCLI(t, "", "restore", "--db", db, keeper); !strings.Contains(out, "restored "+keeper) {
		t.Errorf("restore says %q", out)
	}
	if got := history(keeper); got != versions+1 {
		t.Errorf("history after restore: %d versions, want %d and the restore", got, versions)
	}
	if !found(keeper) {
		t.Fatal("search does not find the restored note")
	}
	if list := mustCLI(t, "", "trash", "--db", db, "-n", "ns"); strings.Contains(list, keeper) {
		t.Fatalf("trash after restore lists %q", list)
	}

	mustCLI(t, "", "delete", "--db", db, "--purge", keeper)
	mustCLI(t, "", "delete", "--db", db, cabin)
	mustCLI(t, "", "purge", "--db", db, cabin)
	for _, id := range []string{keeper, cabin} {
		if _, _, err := amemCLI(t, "", "restore", "--db", db, id); exitCode(err, &bytes.Buffer{}) != exitNotFound {
			t.Errorf("restore of purged %s: %v, want not found", id, err)
		}
	}
	if _, _, err := amemCLI(t, "", "purge", "--db", db); exitCode(err, &bytes.Buffer{}) != exitUsage {
		t.Errorf("purge without IDs: %v, want a usage error", err)
	}
	other := add("emptied with the rest")
	mustCLI(t, "", "delete", "--db", db, other)
	var purged struct{ Purged int }
	if err := json.Unmarshal([]byte(mustCLI(t, "", "purge", "--db", db, "-n", "ns", "--all", "--json")), &purged); err != nil || purged.Purged != 1 {
		t.Fatalf("purge --all: %+v, %v", purged, err)
	}
}
