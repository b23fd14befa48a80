package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem/cmd/internal/cli"
)

// TestJSONErrors: under --json an error is one JSON object on stderr, with
// the exit status it always had; stdout stays empty.
func TestJSONErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "e.db")
	mustCLI(t, "", "add", "--db", db, "--curator", "none", "x") // a note not found, not a database
	for _, tc := range []struct {
		name string
		args []string
		code int
		kind string
		msg  string
	}{
		// A flag cobra cannot parse fails before --json is set.
		{"bad flag", []string{"search", "--db", db, "--colour", "x", "--json"}, exitUsage, "usage", "unknown flag"},
		{"json first", []string{"--json", "search", "--db", db, "--colour", "x"}, exitUsage, "usage", "unknown flag"},
		{"missing argument", []string{"add", "--db", db, "--json"}, exitUsage, "usage", "needs the memory's text"},
		{"bad input", []string{"add", "--db", db, "--json", "--time", "yesterday", "x"}, exitUsage, "invalid", "RFC 3339"},
		{"not found", []string{"show", "--db", db, "--json", "01ARZ3NDEKTSV4RRFFQ69G5FAV"}, exitNotFound, "not_found", "amem list"},
		{"unknown embedder", []string{"add", "--db", db, "--json", "x", "--embedder", "nope"}, exitUsage, "invalid", "unknown embedder"},
		{"other", []string{"export", "--db", db, "--json", "-o", filepath.Join(dir, "no", "out.jsonl")}, exitError, "error", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if !strings.Contains(strings.Join(args, " "), "--embedder") {
				args = append(args, "--embedder", "lexical")
			}
			var out, errb bytes.Buffer
			err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
			var msg bytes.Buffer
			code := exitCode(err, &msg)
			if code != tc.code {
				t.Fatalf("exit %d (%v), want %d", code, err, tc.code)
			}
			var got cli.ErrorJSON
			dec := json.NewDecoder(&msg)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("stderr %q is not one JSON error: %v", msg.String(), err)
			}
			if dec.More() {
				t.Fatalf("stderr %q holds more than one JSON document", msg.String())
			}
			if got.Kind != tc.kind || got.ExitCode != tc.code || !strings.Contains(got.Error, tc.msg) {
				t.Fatalf("error %+v, want kind %s, exit_code %d and a message with %q", got, tc.kind, tc.code, tc.msg)
			}
			if out.Len() != 0 {
				t.Fatalf("stdout %q after an error", out.String())
			}
		})
	}
	// Without --json, or with --json=false, the error stays a line for people.
	for _, args := range [][]string{
		{"show", "--db", db, "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		{"show", "--json", "--json=false", "--db", db, "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
	} {
		_, _, err := amemCLI(t, "", args...)
		var msg bytes.Buffer
		if code := exitCode(err, &msg); code != exitNotFound || !strings.HasPrefix(msg.String(), "amem: note ") {
			t.Fatalf("amem %v: exit %d, %q; want 3 and a plain line", args, code, msg.String())
		}
	}
}

// TestJSONErrorProcess runs the binary: the exit status and the JSON on
// stderr are what a program sees.
func TestJSONErrorProcess(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	mustCLI(t, "", "add", "--db", db, "--curator", "none", "x")
	cmd := amemCommand(t, nil, "show", "--db", db, "--json", "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitNotFound {
		t.Fatalf("exit: %v, want status %d", err, exitNotFound)
	}
	var got cli.ErrorJSON
	if err := json.Unmarshal(errb.Bytes(), &got); err != nil || got.Kind != "not_found" || got.ExitCode != exitNotFound {
		t.Fatalf("stderr %q: %v %+v", errb.String(), err, got)
	}
	if out.Len() != 0 {
		t.Fatalf("stdout %q", out.String())
	}
}
