package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
