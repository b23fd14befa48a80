package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem/internal/fakellm"
)

// amem-eval curator scores the built-in set in both halves, and its
// --tuning-out file holds tuning notes only: held-out output is never
// written where someone tuning could read it.
func TestCLICurator(t *testing.T) {
	dir := t.TempDir()
	out, tuning := filepath.Join(dir, "rows.json"), filepath.Join(dir, "tuning.json")
	table := mustEval(t, "curator", "--out", out, "--tuning-out", tuning)
	for _, want := range []string{"| half | part | notes | keyword precision", "| held-out | statements | ", "| tuning | statements | "} {
		if !strings.Contains(table, want) {
			t.Fatalf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "| turns |") {
		t.Fatalf("LoCoMo turns scored without --locomo:\n%s", table)
	}
	var rows struct {
		Curator string `json:"curator"`
		Rows    []struct {
			Half  string `json:"half"`
			Notes int    `json:"notes"`
		} `json:"rows"`
	}
	readJSON(t, out, &rows)
	if rows.Curator != "offline" || len(rows.Rows) != 4 {
		t.Fatalf("rows %+v", rows)
	}
	var notes []struct {
		ID      string `json:"id"`
		HeldOut bool   `json:"held_out"`
		Context string `json:"context"`
	}
	readJSON(t, tuning, &notes)
	if len(notes) < 100 {
		t.Fatalf("%d tuning notes written, want the tuning half of 292", len(notes))
	}
	for _, n := range notes {
		if n.HeldOut || n.Context == "" {
			t.Fatalf("tuning file holds %+v", n)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Issue 31 measures the LLM curator on the same set where a model is
// configured: against a server that speaks OpenAI's wire format, the
// curator verb scores what the model wrote, and names it.
func TestCLICuratorWithLLM(t *testing.T) {
	srv := httptest.NewServer(&fakellm.Server{})
	defer srv.Close()
	t.Setenv("AMEM_LLM", "openai:"+fakellm.Model)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	out := filepath.Join(t.TempDir(), "rows.json")
	table := mustEval(t, "curator", "--curator", "llm", "--out", out)
	if !strings.Contains(table, "| held-out | statements | ") {
		t.Fatalf("table:\n%s", table)
	}
	var rows struct {
		Curator string `json:"curator"`
		Rows    []struct {
			Half             string  `json:"half"`
			Notes            int     `json:"notes"`
			KeywordPrecision float64 `json:"keyword_precision"`
			TagPrecision     float64 `json:"tag_precision"`
		} `json:"rows"`
	}
	readJSON(t, out, &rows)
	if !strings.Contains(rows.Curator, "llm") || !strings.Contains(rows.Curator, fakellm.Model) {
		t.Fatalf("curator %q, want the LLM named", rows.Curator)
	}
	// The fake model's keywords are the note's first three words, lower
	// case: some are fragments a careful reader would not want, so the
	// score is below the offline curator's, and above nothing.
	for _, r := range rows.Rows {
		if r.Notes == 0 || r.KeywordPrecision <= 0 || r.KeywordPrecision >= 0.9 {
			t.Fatalf("row %+v: the fake model's keywords scored as if they were not read", r)
		}
	}
}
