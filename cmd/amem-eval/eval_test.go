package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/internal/fakellm"
	"github.com/amem-dev/amem/memory"
)

// The documented evaluation against an OpenAI-compatible server:
// `amem-eval locomo --curator llm --answer` ingests with the LLM curator,
// then answers each question with the model and scores the answers.
func TestCLIEvalWithLLMCuratorAndAnswers(t *testing.T) {
	model := &fakellm.Server{Answer: func(prompt string) string {
		switch {
		case strings.Contains(prompt, "name of Ann's puppy"):
			return "Rex"
		case strings.Contains(prompt, "Not mentioned in the conversation"): // the adversarial question
			return "Not mentioned in the conversation"
		}
		return "the violin"
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	t.Setenv("AMEM_LLM", "openai:"+fakellm.Model)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	data := filepath.Join("..", "..", "eval", "testdata", "tiny-locomo.json")
	out := filepath.Join(t.TempDir(), "results.json")
	table := mustEval(t, "locomo", "--data", data, "--mode", "amem", "--k", "3", "--curator", "llm", "--answer", "--out", out)
	// K = 3 is not one of the fixed cut-offs; the table's headline is
	// still recall at it.
	if !strings.Contains(table, "recall@3 by category") || !strings.Contains(table, "| amem | 1.000 | 0.000 | 0.000 | 1.000 | 1.000 |") ||
		!strings.Contains(table, "answers by openai:"+fakellm.Model) {
		t.Fatalf("table:\n%s", table)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Config struct {
			Curator   string `json:"curator"`
			Answerer  string `json:"answerer"`
			EmbedText string `json:"embed_text"`
		} `json:"config"`
		Questions []struct {
			Prediction *string  `json:"prediction"`
			F1         *float64 `json:"f1"`
		} `json:"questions"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	// An LLM curator's notes embed the paper's text (content, context,
	// keywords, tags), as the library does with it.
	if res.Config.Curator != "llm (openai:"+fakellm.Model+")" || res.Config.Answerer != "openai:"+fakellm.Model || res.Config.EmbedText != "paper" {
		t.Fatalf("results config %+v", res.Config)
	}
	if len(res.Questions) != 3 {
		t.Fatalf("%d questions scored, want 3", len(res.Questions))
	}
	for _, q := range res.Questions {
		if q.Prediction == nil || q.F1 == nil || *q.F1 != 1 {
			t.Fatalf("question not answered and scored: %+v", q)
		}
	}
	// Each of the five turns was constructed by the model, the four with
	// earlier turns connected by it; then three questions were answered.
	model.Mu.Lock()
	defer model.Mu.Unlock()
	var curated, answered int
	for _, f := range model.Formats {
		if f == "json_schema" {
			curated++
		} else {
			answered++
		}
	}
	if curated != 9 || answered != 3 {
		t.Fatalf("%d curator calls and %d answers, want 9 and 3", curated, answered)
	}
}

// --cv on two conversations: the cross-validated table beside the
// in-sample one, and the folds in the results file.
func TestCLIEvalCrossValidates(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(filepath.Join("..", "..", "eval", "testdata", "tiny-locomo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var convs []map[string]any
	if err := json.Unmarshal(raw, &convs); err != nil {
		t.Fatal(err)
	}
	copyConv := map[string]any{}
	for k, v := range convs[0] {
		copyConv[k] = v
	}
	copyConv["sample_id"] = "conv-y"
	raw, _ = json.Marshal(append(convs, copyConv))
	data := filepath.Join(dir, "two.json")
	if err := os.WriteFile(data, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, rankerOut := filepath.Join(dir, "cv.json"), filepath.Join(dir, "ranker.json")
	table := mustEval(t, "locomo", "--data", data, "--k", "2", "--cv", "--out", out, "--ranker-out", rankerOut)
	if !strings.Contains(table, "**cross-validated, mean over folds**") || !strings.Contains(table, "| conv-x | 2 | feedback-weight=0 lexical-weight=") ||
		!strings.Contains(table, "**ranker cross-validated, mean over folds**") || !strings.Contains(table, "| names |") {
		t.Fatalf("table:\n%s", table)
	}
	raw, err = os.ReadFile(rankerOut)
	if err != nil {
		t.Fatal(err)
	}
	var r memory.Ranker
	if err := json.Unmarshal(raw, &r); err != nil || r.Validate() != nil || !strings.Contains(r.About, "two.json") {
		t.Fatalf("--ranker-out wrote %s (%v)", raw, err)
	}
	// --no-ranker: fusion alone, and no ranker to cross-validate.
	if plain := mustEval(t, "locomo", "--data", data, "--k", "2", "--cv-grid", "lexical-weight=1", "--no-ranker"); strings.Contains(plain, "learned ranker") {
		t.Fatalf("--no-ranker table:\n%s", plain)
	}
	raw, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		CV struct {
			Grid []struct {
				Name string `json:"name"`
			} `json:"grid"`
			Modes []struct {
				Folds []struct {
					HeldOut string            `json:"held_out"`
					Chosen  map[string]string `json:"chosen"`
				} `json:"folds"`
			} `json:"modes"`
			Ranker []struct {
				Mode  string `json:"mode"`
				Folds []struct {
					HeldOut string `json:"held_out"`
				} `json:"folds"`
				Mean      map[string]map[string]float64 `json:"mean"`
				Ablations []struct {
					Without string `json:"without"`
				} `json:"ablations"`
			} `json:"ranker"`
		} `json:"cv"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	// The default grid: lexical-weight, link-order, reply-weight, feedback-weight.
	if len(res.CV.Grid) != 4 || len(res.CV.Modes) != 1 || len(res.CV.Modes[0].Folds) != 2 || res.CV.Modes[0].Folds[0].Chosen["link-order"] == "" || res.CV.Modes[0].Folds[0].Chosen["reply-weight"] == "" {
		t.Fatalf("cv in the results file: %+v", res.CV)
	}
	if rk := res.CV.Ranker; len(rk) != 1 || rk[0].Mode != "amem" || len(rk[0].Folds) != 2 || rk[0].Mean["1-4"] == nil || len(rk[0].Ablations) == 0 {
		t.Fatalf("cv.ranker in the results file: %+v", rk)
	}
}

func TestCLIEvalCrossValidationErrors(t *testing.T) {
	tiny := filepath.Join("..", "..", "eval", "testdata", "tiny-locomo.json")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--cv-grid", "fusion=1,2"}, `unknown constant "fusion"`},
		{[]string{"--cv-grid", "lexical-weight=0"}, `"0" is not a positive number`},
		{[]string{"--cv"}, "needs at least 2; " + tiny + " has 1"},
		{[]string{"--reply-weight", "-1"}, "must be 0 (off) or more"},
		{[]string{"--dense-feedback-weight", "-0.5"}, "must be 0 (off) or more"},
		{[]string{"--day-spread", "1"}, "--day-spread must be from 0 (off) to below 1"},
		{[]string{"--cv-grid", "day-spread=0,1"}, "use a number from 0 (off) to below 1"},
		{[]string{"--ranker-out", "r.json"}, "--ranker-out trains the ranker in the cross-validation: add --cv"},
		{[]string{"--ranker-out", "r.json", "--cv", "--no-ranker"}, "drop --no-ranker"},
		{[]string{"--ranker-out", "r.json", "--cv", "--mode", "bm25"}, "add --mode amem"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"locomo", "--data", tiny, "--embedder", "lexical"}, tc.args...)
		err := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		var msg bytes.Buffer
		if code := cli.ExitCode("amem-eval", err, &msg); code != cli.ExitUsage || !strings.Contains(msg.String(), tc.msg) {
			t.Errorf("%v: exit %d, message %q; want a usage error with %q", tc.args, code, msg.String(), tc.msg)
		}
	}
}

// The offline curator's eval embeds note content, as local.Open does; a
// wrong --embed-text is a usage error naming the choices.
func TestCLIEvalEmbedText(t *testing.T) {
	data := filepath.Join("..", "..", "eval", "testdata", "tiny-locomo.json")
	out := filepath.Join(t.TempDir(), "results.json")
	mustEval(t, "locomo", "--data", data, "--mode", "amem", "--k", "3", "--out", out)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Config struct {
			EmbedText string `json:"embed_text"`
		} `json:"config"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Config.EmbedText != "content" {
		t.Fatalf("offline eval embedded %q, want content", res.Config.EmbedText)
	}
	_, _, err = evalCLI(t, "locomo", "--data", data, "--embed-text", "everything")
	if err == nil || !strings.Contains(err.Error(), "use content or paper") {
		t.Fatalf("--embed-text everything: %v", err)
	}
}

// Bare `amem-eval` runs the suite: every mode asked for on the sets
// asked for, one table, the results file, and with --fit-relevance curves
// that validate, written as package local ships them. (The agent set's
// run through the product's settings is package eval's test.)
func TestCLIEvalSuite(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join("..", "..", "eval", "testdata", "tiny-locomo.json")
	out, fit := filepath.Join(dir, "suite.json"), filepath.Join(dir, "relevance.json")
	table := mustEval(t, "--embedder", "lexical", "--locomo", data, "--set", "locomo-facts,locomo-turns",
		"--mode", "lexical,default", "--out", out, "--fit-relevance", fit)
	for _, want := range []string{"| locomo-facts | held-out | lexical | 1 |", "| locomo-turns | tuning | default | 1 |", "own-text@1", "5 notes, 2 queries"} {
		if !strings.Contains(table, want) {
			t.Fatalf("table lacks %q:\n%s", want, table)
		}
	}
	var res struct {
		Rows []struct {
			Mode    string  `json:"mode"`
			Half    string  `json:"half"`
			OwnText float64 `json:"own_text_at1"`
			Prefix  float64 `json:"k_prefix"`
		} `json:"rows"`
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Rows) != 8 {
		t.Fatalf("results %s: %v", raw, err)
	}
	for _, r := range res.Rows {
		if r.Prefix != 1 || r.Half == "held-out" && r.OwnText != 1 {
			t.Fatalf("row %+v: an invariant broke", r)
		}
	}
	var rel memory.Relevance
	raw, err = os.ReadFile(fit)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rel); err != nil || rel.Validate() != nil || !strings.Contains(rel.About, "tuning halves of locomo-facts, locomo-turns") {
		t.Fatalf("fitted curves %s: %v", raw, err)
	}
}
