package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestREADMEQuickstart runs the README's Quickstart, as a new user would
// with the offline default (the sentence model, the offline curator), and
// compares every line it prints with the README's, so that the README's
// output cannot go stale. IDs differ from run to run: the first time the
// README shows an ID, it stands for the ID this run printed in its place,
// and must stand for that same note wherever it appears after, commands
// included.
func TestREADMEQuickstart(t *testing.T) {
	if _, err := os.Stat(modelDirForTest(t)); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the sentence model is not installed (%v); .ci/run's make test pulls it first", err)
		}
		t.Skipf("SKIPPING: the USE-lite model is not installed (%v); run 'amem model pull'", err)
	}
	steps := quickstartSteps(t, "../../README.md")
	if len(steps) < 4 {
		t.Fatalf("found %d commands in the README's Quickstart; want the block of real output", len(steps))
	}
	ids := map[string]string{} // the README's ID -> this run's
	for _, s := range steps {
		if v, ok := strings.CutPrefix(s.cmd, "export AMEM_DB="); ok {
			t.Setenv("AMEM_DB", filepath.Join(t.TempDir(), filepath.Base(v)))
			continue
		}
		line := ulid.ReplaceAllStringFunc(s.cmd, func(id string) string {
			if got, ok := ids[id]; ok {
				return got
			}
			t.Fatalf("the README's command %q names ID %s before any output showed it", s.cmd, id)
			return id
		})
		args, grep := quickstartArgs(t, line)
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, strings.NewReader(""), &out, &errb); err != nil {
			t.Fatalf("%s: %v\n%s", s.cmd, err, errb.String())
		}
		got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if grep != "" {
			got = slices.DeleteFunc(got, func(l string) bool { return !strings.Contains(l, grep) })
		}
		if len(got) != len(s.want) {
			t.Fatalf("%s printed %d lines, the README shows %d:\n%s\nREADME:\n%s", s.cmd, len(got), len(s.want), strings.Join(got, "\n"), strings.Join(s.want, "\n"))
		}
		for i, w := range s.want {
			if !sameLine(w, got[i], ids) {
				t.Errorf("%s, line %d:\n got    %q\n README %q", s.cmd, i+1, got[i], w)
			}
		}
	}
}

// ulid matches a note ID.
var ulid = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)

// sameLine reports whether got is the README's line want, IDs mapped
// through ids; an ID want shows for the first time is mapped to the one
// got has at the same place.
func sameLine(want, got string, ids map[string]string) bool {
	wantIDs, gotIDs := ulid.FindAllString(want, -1), ulid.FindAllString(got, -1)
	if len(wantIDs) != len(gotIDs) || ulid.ReplaceAllString(want, "ID") != ulid.ReplaceAllString(got, "ID") {
		return false
	}
	for i, w := range wantIDs {
		if m, ok := ids[w]; ok && m != gotIDs[i] {
			return false
		} else if !ok {
			ids[w] = gotIDs[i]
		}
	}
	return true
}

type quickstartStep struct {
	cmd  string   // after "$ "
	want []string // the lines the README shows it printing
}

// quickstartSteps reads the fenced block of the README's Quickstart that
// sets AMEM_DB: its "$ " lines are commands, the others their output.
func quickstartSteps(t *testing.T, path string) []quickstartStep {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Quickstart\n")
	if !ok {
		t.Fatal(`the README has no "## Quickstart" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, block, ok := strings.Cut(sec, "```\n$ export AMEM_DB=")
	if !ok {
		t.Fatal("the README's Quickstart has no block starting with $ export AMEM_DB=")
	}
	block, _, _ = strings.Cut("$ export AMEM_DB="+block, "```")
	var steps []quickstartStep
	for _, l := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
		if c, ok := strings.CutPrefix(l, "$ "); ok {
			steps = append(steps, quickstartStep{cmd: c})
		} else if len(steps) > 0 {
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
		}
	}
	return steps
}

// quickstartArgs splits a README command line "./bin/amem ARGS [| grep
// 'PATTERN']" as a shell would (single and double quotes) into amem's
// arguments and the pattern grep keeps.
func quickstartArgs(t *testing.T, line string) (args []string, grep string) {
	t.Helper()
	cmd, pipe, piped := strings.Cut(line, " | grep ")
	words := shellWords(t, cmd)
	if len(words) == 0 || words[0] != "./bin/amem" {
		t.Fatalf("README command %q does not run ./bin/amem", line)
	}
	if piped {
		p := shellWords(t, pipe)
		if len(p) != 1 {
			t.Fatalf("README command %q: grep takes one pattern here", line)
		}
		grep = p[0]
	}
	return words[1:], grep
}

func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var (
		words []string
		cur   strings.Builder
		quote rune
		in    bool
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("unclosed quote in %q", s)
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
