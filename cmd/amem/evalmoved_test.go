package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/amem-dev/amem/cmd/internal/cli"
)

// `amem eval ...` runs no evaluation: it says that the lab is amem-eval,
// how to build it and what to type there, and exits 2.
func TestEvalMovedProcess(t *testing.T) {
	out, err := amemCommand(t, nil, "eval", "locomo", "--data", "x").Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || len(out) != 0 {
		t.Fatalf("exit: %v, stdout %q; want status %d and nothing on stdout", err, out, exitUsage)
	}
	stderr := string(ee.Stderr)
	for _, want := range []string{"amem: ", "make lab", "go build -o bin/amem-eval ./cmd/amem-eval",
		"\n  amem-eval locomo --data x --embedder lexical\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestEvalMoved(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the amem-eval command line
	}{
		{[]string{"eval"}, "amem-eval"},
		{[]string{"eval", "--help"}, "amem-eval --help"},
		{[]string{"eval", "suite", "--set", "agent", "--out", "my results.json"}, "amem-eval suite --set agent --out 'my results.json'"},
		{[]string{"eval", "locomo", "--data", "it's.json", "--db", "postgres://localhost/scratch"}, `amem-eval locomo --data 'it'\''s.json' --db postgres://localhost/scratch`},
		// The configuration is not read: a bad one does not hide the pointer.
		{[]string{"eval", "--config", "/nonexistent.json"}, "amem-eval --config /nonexistent.json"},
	} {
		var out, errb bytes.Buffer
		err := run(t.Context(), tc.args, strings.NewReader(""), &out, &errb)
		var msg bytes.Buffer
		if code := exitCode(err, &msg); code != exitUsage || !strings.HasSuffix(msg.String(), "\n  "+tc.want+"\n") {
			t.Errorf("amem %v: exit %d, %q; want 2 and the line %q", tc.args, code, msg.String(), tc.want)
		}
		if out.Len() != 0 || errb.Len() != 0 {
			t.Errorf("amem %v printed %q, %q besides the error", tc.args, out.String(), errb.String())
		}
	}
	// With --json the pointer is the usage error's JSON.
	err := run(t.Context(), []string{"eval", "--json"}, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	var msg bytes.Buffer
	var got cli.ErrorJSON
	if code := exitCode(err, &msg); code != exitUsage || json.Unmarshal(msg.Bytes(), &got) != nil || got.Kind != "usage" || !strings.Contains(got.Error, "amem-eval --json") {
		t.Errorf("amem eval --json: exit %d, %q", code, msg.String())
	}
	// amem --help still lists eval, as the pointer.
	var help bytes.Buffer
	if err := run(t.Context(), []string{"--help"}, strings.NewReader(""), &help, &help); err != nil || !strings.Contains(help.String(), "amem-eval") {
		t.Errorf("amem --help (%v):\n%s", err, help.String())
	}
}
