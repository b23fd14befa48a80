package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem/cmd/internal/cli"
)

// Mistakes in how amem-eval is typed are usage errors (exit 2) that say
// what to type, as they were under amem eval.
func TestCLIErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"bad suite set", []string{"--set", "turns"}, `--set "turns": use agent, locomo-facts or locomo-turns`},
		{"suite set without data", []string{"suite", "--set", "locomo-turns"}, "needs --locomo FILE"},
		{"bad suite mode", []string{"suite", "--mode", "semantic"}, `--mode "semantic": use vector, lexical`},
		{"bad suite k", []string{"--k", "0"}, "--k must be between 1 and 100"},
		{"an argument", []string{"locomo", "x.json"}, `locomo takes no arguments, got ["x.json"]`},
		{"locomo without data", []string{"locomo"}, "--data FILE is required"},
		{"curator argument", []string{"curator", "notes.jsonl"}, `curator takes no arguments, got ["notes.jsonl"]`},
		{"curator none", []string{"curator", "--curator", "none"}, "--curator none writes nothing to score"},
		{"bad flag", []string{"--colour"}, "unknown flag: --colour (see 'amem-eval --help')"},
		{"bad verb flag", []string{"locomo", "--colour"}, "unknown flag: --colour (see 'amem-eval locomo --help')"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := evalCLI(t, tc.args...)
			var msg bytes.Buffer
			if code := cli.ExitCode("amem-eval", err, &msg); code != cli.ExitUsage {
				t.Fatalf("exit %d (%v), want %d", code, err, cli.ExitUsage)
			}
			if !strings.HasPrefix(msg.String(), "amem-eval: ") || !strings.Contains(msg.String(), tc.msg) {
				t.Fatalf("message %q lacks %q", msg.String(), tc.msg)
			}
		})
	}
}

// The help says amem-eval, and lists both verbs.
func TestCLIHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"locomo", "--help"}, {"suite", "--help"}, {"supersede", "--help"}, {"curator", "--help"}, {"paired", "--help"}} {
		var out bytes.Buffer
		if err := run(context.Background(), args, strings.NewReader(""), &out, &out); err != nil {
			t.Fatalf("amem-eval %v: %v", args, err)
		}
		if !strings.Contains(out.String(), "amem-eval") || strings.Contains(out.String(), "amem eval") {
			t.Errorf("amem-eval %v:\n%s", args, out.String())
		}
	}
	var out bytes.Buffer
	run(context.Background(), []string{"--help"}, strings.NewReader(""), &out, &out)
	for _, want := range []string{"locomo", "suite", "supersede", "curator", "--locomo", "--fit-relevance", "--db", "--embedder", "--curator", "--llm"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("amem-eval --help lacks %s:\n%s", want, out.String())
		}
	}
}

// amem-eval supersede scores both rules on the labelled pairs and prints
// every row of the table; --out writes each pair's verdict. (The lexical
// embedder keeps the test fast; the figures in docs/EVALUATION.md are
// use-lite's.)
func TestSupersedeCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "supersede.json")
	stdout := mustEval(t, "supersede", "--out", out)
	for _, want := range []string{
		"| rule | half | pairs | precision | recall | TP | FP | FN |",
		"| supersedes | held-out, round 2 | 64 |",
		"| supersedes | tuning | 237 |",
		"| restates | held-out | 238 |",
		"| restates, words alone | tuning | 237 |",
		"| supersede | negation |",
		"| compatible | addition |",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	var res struct {
		Pairs []struct {
			ID, Label, Reason string
			Supersedes        bool
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 475 || res.Pairs[0].ID != "p001" || res.Pairs[0].Reason == "" {
		t.Fatalf("results file: %d pairs, first %+v", len(res.Pairs), res.Pairs[0])
	}
	if _, _, err := evalCLI(t, "supersede", "extra"); err == nil || !strings.Contains(err.Error(), "supersede takes no arguments") {
		t.Errorf("an argument: %v", err)
	}
}

// amem-eval paired compares two suite results files query by query: a
// run where every held-out query is answered in full reads "higher"
// there and "no difference measured" on the untouched tuning half; a
// file without per-query figures is refused with what to do.
func TestPairedCommand(t *testing.T) {
	dir := t.TempDir()
	before := filepath.Join(dir, "before.json")
	mustEval(t, "suite", "--set", "agent", "--mode", "lexical", "--out", before)
	var res map[string]any
	b, err := os.ReadFile(before)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	qs, _ := res["queries"].([]any)
	if len(qs) == 0 {
		t.Fatalf("the results file holds no per-query figures")
	}
	for _, q := range qs {
		if q := q.(map[string]any); q["half"] == "held-out" {
			q["recall"] = 1.0
		}
	}
	after := filepath.Join(dir, "after.json")
	writeJSONFile(t, after, res)
	table := mustEval(t, "paired", before, after)
	for _, want := range []string{"| agent | held-out | lexical | 150 |", "| higher |", "| agent | tuning | lexical | 156 | 0 | 0 |", "| no difference measured |"} {
		if !strings.Contains(table, want) {
			t.Errorf("paired table lacks %q:\n%s", want, table)
		}
	}
	delete(res, "queries")
	old := filepath.Join(dir, "old.json")
	writeJSONFile(t, old, res)
	if _, _, err := evalCLI(t, "paired", old, after); err == nil || !strings.Contains(err.Error(), "no per-query figures") {
		t.Errorf("a file without per-query figures: %v", err)
	}
	if _, _, err := evalCLI(t, "paired", before); err == nil || !strings.Contains(err.Error(), "two results files") {
		t.Errorf("one file: %v", err)
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
