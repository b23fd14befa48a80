package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// editedNote is what TestEdit reads of a note.
type editedNote struct {
	Content  string            `json:"content"`
	Context  string            `json:"context"`
	Keywords []string          `json:"keywords"`
	Tags     []string          `json:"tags"`
	Time     time.Time         `json:"event_time"`
	Metadata map[string]string `json:"metadata"`
	Version  int               `json:"version"`
}

// TestEdit runs amem edit as a process: each field changes as PATCH
// changes it, with its reason in the history, and mistakes are refused
// with the library's checks and the documented exit codes.
func TestEdit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "e.db")
	amem := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		cmd := amemCommand(t, nil, append(args, "--db", db, "--curator", "none")...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), errb.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), 0
	}
	id, _, _ := amem("", "add", "--tag", "old", "--meta", "source=notes", "Caroline went to a support group")
	id = strings.TrimSpace(id)

	out, stderr, code := amem("Caroline went to an LGBTQ support group\n", "edit", id, "--content", "-",
		"--tags", "family,support", "--time", "2023-05-08T13:56:00Z", "--metadata", "source=chat", "--metadata", "turn=3",
		"--reason", "said more precisely", "--json")
	if code != 0 {
		t.Fatalf("edit: exit %d: %s", code, stderr)
	}
	var n editedNote
	if err := json.Unmarshal([]byte(out), &n); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if n.Content != "Caroline went to an LGBTQ support group" || strings.Join(n.Tags, ",") != "family,support" ||
		!n.Time.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) || len(n.Metadata) != 2 || n.Metadata["turn"] != "3" || n.Version != 2 {
		t.Fatalf("after edit: %+v", n)
	}
	if out, _, _ := amem("", "history", id); !strings.Contains(out, "v2") || !strings.Contains(out, "user: said more precisely") {
		t.Fatalf("history:\n%s", out)
	}

	out, _, code = amem("", "edit", id, "--context", "A support group meeting", "--keywords", "support,group", "--metadata", "", "--tags", "")
	if code != 0 || out != "edited "+id+": version 3 (was 2)\n" {
		t.Fatalf("edit: exit %d, %q", code, out)
	}
	out, _, _ = amem("", "show", id, "--json")
	n = editedNote{} // absent fields must read as empty, not as before
	if err := json.Unmarshal([]byte(out), &n); err != nil {
		t.Fatal(err)
	}
	if n.Context != "A support group meeting" || strings.Join(n.Keywords, ",") != "support,group" || len(n.Tags) != 0 || len(n.Metadata) != 0 {
		t.Fatalf("after the second edit: %+v", n)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"edit", id}, exitUsage, "nothing to change"},
		{[]string{"edit", id, "--time", "0001-01-01"}, exitUsage, "zero time"},
		{[]string{"edit", id, "--time", "yesterday"}, exitUsage, "RFC 3339"},
		{[]string{"edit", id, "--content", " "}, exitUsage, "content is empty"},
		{[]string{"edit", id, "--metadata", "novalue"}, exitUsage, "use KEY=VALUE"},
		{[]string{"edit", id, "--content", "-"}, exitUsage, "standard input holds no text"},
		{[]string{"edit", aNoteID, "--tags", "x"}, exitNotFound, "note " + aNoteID + ": not found (list notes"},
	} {
		if _, stderr, code := amem("", tc.args...); code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
	if out, _, _ := amem("", "show", id, "--json"); !strings.Contains(out, `"version": 3`) {
		t.Errorf("a refused edit changed the note:\n%s", out)
	}
}
