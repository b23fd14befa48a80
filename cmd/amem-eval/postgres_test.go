package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/postgres"
)

// `amem-eval locomo --db postgres://...` runs the benchmark in that
// database and retrieves exactly what it retrieves on SQLite, in every
// kind of ingest.
func TestCLIEvalOnPostgres(t *testing.T) {
	data := filepath.Join("..", "..", "eval", "testdata", "tiny-locomo.json")
	run := func(db string) map[string][]string {
		out := filepath.Join(t.TempDir(), "results.json")
		args := []string{"locomo", "--data", data, "--mode", "bm25,vector,amem,amem-no-evolution", "--k", "3",
			"--embedder", "lexical", "--curator", "offline", "--out", out}
		if db != "" {
			args = append(args, "--db", db)
		}
		mustEval(t, args...)
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Questions []struct {
				Mode      string   `json:"mode"`
				SampleID  string   `json:"sample_id"`
				Index     int      `json:"index"`
				Retrieved []string `json:"retrieved"`
				Kinds     []string `json:"kinds"`
			} `json:"questions"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, q := range res.Questions {
			key := q.Mode + " " + q.SampleID + " " + strconv.Itoa(q.Index)
			got[key] = append(slices.Clone(q.Retrieved), q.Kinds...)
		}
		return got
	}
	url := pgtest.URL(t)
	onSQLite, onPostgres := run(""), run(url)
	st, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var kinds []string
	if err := st.View(context.Background(), func(tx amem.Tx) error {
		nss, err := tx.Namespaces()
		for _, ns := range nss {
			if strings.HasPrefix(ns.Name, "eval-") {
				kinds = append(kinds, ns.Name)
			}
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 3 { // raw, enriched, no-evolution, one conversation
		t.Fatalf("the run's namespaces in PostgreSQL: %v", kinds)
	}
	if len(onSQLite) == 0 {
		t.Fatal("no questions scored")
	}
	for key, want := range onSQLite {
		if got := onPostgres[key]; !slices.Equal(got, want) {
			t.Errorf("%s: PostgreSQL retrieved %v, SQLite %v", key, got, want)
		}
	}
	if len(onPostgres) != len(onSQLite) {
		t.Errorf("%d questions on PostgreSQL, %d on SQLite", len(onPostgres), len(onSQLite))
	}
}
