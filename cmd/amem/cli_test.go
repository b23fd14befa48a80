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
)

// amemCLI runs the CLI in-process with the lexical embedder (no model
// download) and returns stdout; a non-nil error fails the test unless
// wantErr.
func amemCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append(args, "--embedder", "lexical")
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

func mustCLI(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, stderr, err := amemCLI(t, stdin, args...)
	if err != nil {
		t.Fatalf("amem %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	return out
}

type result struct {
	ID      string  `json:"id"`
	Content string  `json:"content"`
	Score   float64 `json:"score"`
	Kind    string  `json:"kind"`
}

func TestCLIRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	var ids []string
	for _, text := range []string{
		"Caroline went to an LGBTQ support group",
		"Caroline is researching adoption agencies",
		"Caroline attended a support group for adoption",
		"Melanie painted a sunrise",
	} {
		// Flags after the argument work too.
		id := strings.TrimSpace(mustCLI(t, "", "add", text, "--db", db, "--namespace", "ns"))
		if len(id) != 26 {
			t.Fatalf("add printed %q, want an ID", id)
		}
		ids = append(ids, id)
	}
	var note map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "", "show", "--db", db, "--json", ids[2])), &note); err != nil {
		t.Fatal(err)
	}
	if note["id"] != ids[2] || note["namespace"] != "ns" || note["embedding"] != nil {
		t.Fatalf("show --json: %v", note)
	}
	search := func(db string) []result {
		var res []result
		out := mustCLI(t, "", "search", "--db", db, "--namespace", "ns", "--json", "support group adoption")
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("search --json: %v\n%s", err, out)
		}
		return res
	}
	before := search(db)
	if len(before) == 0 || before[0].Kind != "direct" || before[0].ID == "" || before[0].Content == "" {
		t.Fatalf("search results: %+v", before)
	}
	var links []map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "", "links", "--db", db, "--json", ids[2])), &links); err != nil {
		t.Fatal(err)
	}
	var hist []map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "", "history", "--db", db, "--json", ids[0])), &hist); err != nil || len(hist) == 0 {
		t.Fatalf("history: %v %v", err, hist)
	}

	export := mustCLI(t, "", "export", "--db", db)
	db2 := filepath.Join(dir, "b.db")
	mustCLI(t, export, "import", "--db", db2)
	after := search(db2)
	if len(after) != len(before) {
		t.Fatalf("search after import: %d results, before %d", len(after), len(before))
	}
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("result %d: %+v after import, %+v before", i, after[i], before[i])
		}
	}
	var links2 []map[string]any
	json.Unmarshal([]byte(mustCLI(t, "", "links", "--db", db2, "--json", ids[2])), &links2)
	if len(links2) != len(links) {
		t.Fatalf("links after import: %d, before %d", len(links2), len(links))
	}
	if export2 := mustCLI(t, "", "export", "--db", db2); export2 != export {
		t.Fatal("export of the imported db differs from the original export")
	}

	// Restore and delete through the CLI.
	mustCLI(t, "", "restore", "--db", db, ids[0], "1")
	mustCLI(t, "", "delete", "--db", db, ids[3])
	if _, _, err := amemCLI(t, "", "show", "--db", db, ids[3]); exitCode(err, &bytes.Buffer{}) != exitNotFound {
		t.Fatalf("show of a deleted note: %v", err)
	}
	stats := mustCLI(t, "", "stats", "--db", db)
	if !strings.Contains(stats, "ns: 3 notes") {
		t.Fatalf("stats: %s", stats)
	}
}

func TestCLIErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "e.db")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no text", []string{"add", "--db", db}, exitUsage, "needs the memory's text"},
		{"empty text", []string{"add", "--db", db, " "}, exitUsage, "content is empty"},
		{"empty standard input", []string{"add", "--db", db, "-"}, exitUsage, "standard input holds no text"},
		{"bad time", []string{"add", "--db", db, "--time", "yesterday", "x"}, exitUsage, "RFC 3339"},
		{"zero time", []string{"add", "--db", db, "--time", "0001-01-01", "x"}, exitUsage, "time 0001-01-01T00:00:00Z is the zero time"},
		{"time out of range", []string{"add", "--db", db, "--time", "2300-01-01", "x"}, exitUsage, "1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z"},
		{"bad flag", []string{"search", "--db", db, "--colour", "x"}, exitUsage, "unknown flag"},
		{"bad min score", []string{"search", "--db", db, "--min-score", "1.5", "x"}, exitUsage, "--min-score 1.5: use a relevance from 0 to 1"},
		{"bad profile", []string{"search", "--db", db, "--profile", "chat", "x"}, exitUsage, `--profile "chat": use auto, general or conversation`},
		{"bad mode", []string{"search", "--db", db, "--mode", "semantic", "x"}, exitUsage, `--mode "semantic": use hybrid, vector or lexical`},
		{"bad id", []string{"show", "--db", db, "nope"}, exitUsage, "not a note ID"},
		{"unknown id", []string{"show", "--db", db, "01ARZ3NDEKTSV4RRFFQ69G5FAV"}, exitNotFound, "amem list"},
		{"bad version", []string{"restore", "--db", db, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "x"}, exitUsage, "positive number"},
		{"bad namespace", []string{"add", "--db", db, "-n", "a/b", "x"}, exitUsage, "namespace"},
		{"enrich both", []string{"enrich", "--db", db}, exitUsage, "--retry"},
		{"bad embedder", []string{"add", "--db", db, "x", "--embedder", "nope"}, exitUsage, "unknown embedder"},
		{"bad curator", []string{"add", "--db", db, "x", "--curator", "nope"}, exitUsage, "unknown curator"},
		{"unknown command", []string{"serch", "--db", db, "x"}, exitUsage, `unknown command "serch"`},
		// The HTTP API's bounds, checked before the database or the model
		// is opened.
		{"k zero", []string{"search", "--db", db, "--k", "0", "x"}, exitUsage, "--k 0: use a number of hits from 1 to 1000"},
		{"k negative", []string{"search", "--db", db, "--k", "-3", "x"}, exitUsage, "--k -3"},
		{"k too large", []string{"search", "--db", db, "--k", "1001", "x"}, exitUsage, "--k 1001"},
		{"links per hit", []string{"search", "--db", db, "--links-per-hit", "-2", "x"}, exitUsage, "--links-per-hit -2"},
		{"link budget", []string{"search", "--db", db, "--link-budget", "-5", "x"}, exitUsage, "--link-budget -5"},
		{"link order", []string{"search", "--db", db, "--link-order", "sideways", "x"}, exitUsage, `--link-order "sideways"`},
		{"list limit zero", []string{"list", "--db", db, "--limit", "0"}, exitUsage, "--limit 0: use a number of notes from 1 to 1000"},
		{"list limit large", []string{"list", "--db", db, "--limit", "5000"}, exitUsage, "--limit 5000"},
		{"list state", []string{"list", "--db", db, "--state", "bogus"}, exitUsage, `--state "bogus": use pending, done or failed`},
		{"stats namespace", []string{"stats", "--db", db, "-n", "a/b"}, exitUsage, "namespace"},
		{"list namespace", []string{"list", "--db", db, "-n", "a/b"}, exitUsage, "namespace"},
		{"enrich limit", []string{"enrich", "--db", db, "--retry", "--limit", "-1"}, exitUsage, "--limit -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := tc.args
			if !strings.Contains(strings.Join(args, " "), "--embedder") {
				args = append(args, "--embedder", "lexical")
			}
			err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
			var msg bytes.Buffer
			if code := exitCode(err, &msg); code != tc.code {
				t.Fatalf("exit %d (%v), want %d", code, err, tc.code)
			}
			if !strings.Contains(msg.String(), tc.msg) {
				t.Fatalf("message %q lacks %q", msg.String(), tc.msg)
			}
		})
	}
	if _, err := os.Stat(db); err == nil {
		out, _, _ := amemCLI(t, "", "stats", "--db", db)
		if !strings.Contains(out, "no notes") {
			t.Fatalf("a failed command stored something: %s", out)
		}
	}
}

// TestCLIDefaultEmbedderIsTheSentenceModel runs the CLI as a user would,
// with no --embedder: the default must be USE lite, which finds a note by
// meaning where no word is shared.
func TestCLIDefaultEmbedderIsTheSentenceModel(t *testing.T) {
	if _, err := os.Stat(modelDirForTest(t)); err != nil {
		t.Skipf("SKIPPING: the USE-lite model is not installed (%v); run 'amem model pull' (CI does)", err)
	}
	db := filepath.Join(t.TempDir(), "m.db")
	cli := func(args ...string) string {
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, strings.NewReader(""), &out, &errb); err != nil {
			t.Fatalf("amem %v: %v\n%s", args, err, errb.String())
		}
		return out.String()
	}
	cli("add", "--db", db, "My new puppy chews every shoe in the house")
	cli("add", "--db", db, "The quarterly tax return is due in April")
	cli("add", "--db", db, "I baked sourdough bread this morning")
	var res []result
	if err := json.Unmarshal([]byte(cli("search", "--db", db, "--json", "--mode", "vector", "--link-budget", "-1", "dog")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || !strings.Contains(res[0].Content, "puppy") {
		t.Fatalf("search for 'dog' ranked %+v first; want the puppy note", res[0])
	}
	// A score is the hit's relevance, in [0, 1], however the hits were
	// ordered: the ranker (which only the conversation profile uses)
	// changes no score.
	hybrid := func(flags ...string) []result {
		var res []result
		if err := json.Unmarshal([]byte(cli(append([]string{"search", "--db", db, "--json", "--link-budget", "-1", "puppy shoes"}, flags...)...)), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	ranked, fused := hybrid(), hybrid("--no-ranker")
	if len(ranked) != 3 || len(fused) != 3 || !strings.Contains(ranked[0].Content, "puppy") || !strings.Contains(fused[0].Content, "puppy") {
		t.Fatalf("hybrid search for 'puppy shoes': %+v with the ranker, %+v without", ranked, fused)
	}
	if ranked[0].Score <= 0 || ranked[0].Score > 1 || ranked[0].Score != fused[0].Score {
		t.Fatalf("scores %v with the ranker and %v with --no-ranker: want one relevance in [0, 1]", ranked[0].Score, fused[0].Score)
	}
	var stats []map[string]any
	json.Unmarshal([]byte(cli("stats", "--db", db, "--json")), &stats)
	if len(stats) != 1 || stats[0]["embedder"] != "use-lite@0.2.0" {
		t.Fatalf("stats %v: the default embedder is not use-lite", stats)
	}
}

// modelDirForTest is the model.json the CLI would load.
func modelDirForTest(t *testing.T) string {
	cfg, _, err := cli.ResolveConfig(cli.FlagSettings{}, os.Getenv)
	if err != nil || cfg.ModelDir == "" {
		t.Skipf("SKIPPING: no model directory: %v", err)
	}
	return filepath.Join(cfg.ModelDir, "dist", "model.json")
}

// TestCLIWithLLMFromEnvironment is the documented set-up: AMEM_LLM names
// the provider and model, OPENAI_BASE_URL or ANTHROPIC_BASE_URL the
// server. Notes get LLM-written attributes and links; requests ask for
// structured output with the schema (OpenAI's response_format json_schema,
// Anthropic's JSON outputs).
func TestCLIWithLLMFromEnvironment(t *testing.T) {
	for _, tc := range []struct {
		provider string
		env      func(url string)
	}{
		{"openai", func(url string) {
			t.Setenv("OPENAI_BASE_URL", url+"/v1")
			t.Setenv("OPENAI_API_KEY", "sk-test")
		}},
		{"anthropic", func(url string) {
			t.Setenv("ANTHROPIC_BASE_URL", url)
			t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
		}},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			model := &fakellm.Server{}
			srv := httptest.NewServer(model)
			defer srv.Close()
			t.Setenv("AMEM_LLM", tc.provider+":"+fakellm.Model)
			tc.env(srv.URL)
			db := filepath.Join(t.TempDir(), "llm.db")
			mustCLI(t, "", "add", "--db", db, "--namespace", "ns", "support group on tuesday")
			id := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "--namespace", "ns", "support group moved to wednesday"))
			var n map[string]any
			if err := json.Unmarshal([]byte(mustCLI(t, "", "show", "--db", db, "--json", id)), &n); err != nil {
				t.Fatal(err)
			}
			if n["context"] != "A memory about support group moved." || len(n["links"].([]any)) != 1 {
				t.Fatalf("note not curated by the LLM: %v", n)
			}
			// The note's own tokens: one construction and one connection.
			if u, _ := json.Marshal(n["usage"]); string(u) != `[{"calls":1,"completion_tokens":40,"operation":"connect","prompt_tokens":300},{"calls":1,"completion_tokens":40,"operation":"construct","prompt_tokens":300}]` {
				t.Fatalf("note usage %s", u)
			}
			if text := mustCLI(t, "", "show", "--db", db, id); !strings.Contains(text, "tokens:   connect 300 + 40 (1 call)") {
				t.Fatalf("show:\n%s", text)
			}
			var stats []map[string]any
			if err := json.Unmarshal([]byte(mustCLI(t, "", "stats", "--db", db, "--json")), &stats); err != nil {
				t.Fatal(err)
			}
			tokens := stats[0]["tokens"].(map[string]any)
			// Two constructions and one connection (the first note had no candidates).
			if tokens["prompt_tokens"] != 900.0 || tokens["completion_tokens"] != 120.0 {
				t.Fatalf("stats tokens %v", tokens)
			}
			model.Mu.Lock()
			defer model.Mu.Unlock()
			for _, f := range model.Formats {
				if f != "json_schema" {
					t.Fatalf("structured output %q, want json_schema", f)
				}
			}
			if len(model.Formats) != 3 {
				t.Fatalf("%d model calls, want 3", len(model.Formats))
			}
		})
	}
}

func TestCLIConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	os.WriteFile(cfg, []byte(`{"db": "`+filepath.Join(dir, "from-file.db")+`", "embedder": "lexical", "curator": "none"}`), 0o644)
	t.Setenv("AMEM_CONFIG", cfg)
	mustCLI(t, "", "add", "x")
	if _, err := os.Stat(filepath.Join(dir, "from-file.db")); err != nil {
		t.Fatalf("db from the config file not used: %v", err)
	}
	t.Setenv("AMEM_DB", filepath.Join(dir, "from-env.db"))
	mustCLI(t, "", "add", "x")
	if _, err := os.Stat(filepath.Join(dir, "from-env.db")); err != nil {
		t.Fatalf("environment does not win over the file: %v", err)
	}
	mustCLI(t, "", "add", "--db", filepath.Join(dir, "from-flag.db"), "x")
	if _, err := os.Stat(filepath.Join(dir, "from-flag.db")); err != nil {
		t.Fatalf("flag does not win over the environment: %v", err)
	}
	os.WriteFile(cfg, []byte(`{"colour": "red"}`), 0o644)
	if _, _, err := amemCLI(t, "", "stats"); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Fatalf("bad config file: %v", err)
	}
}

func TestCLIReembed(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	mustCLI(t, "", "add", "--db", db, "-n", "ns", "--curator", "none", "hello world")
	if _, _, err := amemCLI(t, "", "reembed", "--db", db); exitCode(err, &bytes.Buffer{}) != exitUsage {
		t.Fatalf("reembed without a namespace: %v", err)
	}
	if got := mustCLI(t, "", "reembed", "--db", db, "-n", "ns"); !strings.Contains(got, "re-embedded 1 note of ns") {
		t.Fatalf("reembed: %q", got)
	}
}

// TestCLIImportPlainLines: amem import reports every bad line and stores
// nothing; a good file goes in once, and again adds nothing.
func TestCLIImportPlainLines(t *testing.T) {
	db := filepath.Join(t.TempDir(), "i.db")
	file := filepath.Join(t.TempDir(), "notes.jsonl")
	good := `{"content": "Caroline went to a support group", "time": "2023-05-08T13:56:00Z"}`
	bad := strings.Join([]string{good, good, `{"content": 5}`, good, "{\"content\": \"caf\xe9\"}", good, `{"content": "x", "time": "0001-01-01T00:00:00Z"}`}, "\n")
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := amemCLI(t, "", "import", "--db", db, "-f", file, "--namespace", "p")
	var msg bytes.Buffer
	if code := exitCode(err, &msg); code != exitUsage {
		t.Fatalf("import of bad lines: exit %d (%v), want %d", code, err, exitUsage)
	}
	for _, want := range []string{"3 bad lines", "line 3: ", "line 5: the line is not valid UTF-8", "line 7: time 0001-01-01T00:00:00Z"} {
		if !strings.Contains(msg.String(), want) {
			t.Errorf("message %q lacks %q", msg.String(), want)
		}
	}
	if out, _, _ := amemCLI(t, "", "stats", "--db", db); !strings.Contains(out, "no notes") {
		t.Fatalf("a refused import stored something: %s", out)
	}

	lines := "\xEF\xBB\xBF" + good + "\n" + `{"content": "Melanie painted a sunrise"}` + "\n" + good + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := mustCLI(t, "", "import", "--db", db, "-f", file, "--namespace", "p"); !strings.Contains(out, "added 2 new notes") || !strings.Contains(out, "1 duplicate line skipped") {
		t.Fatalf("first import: %q", out)
	}
	if out := mustCLI(t, "", "import", "--db", db, "-f", file, "--namespace", "p"); !strings.Contains(out, "added 0 new notes") || !strings.Contains(out, "3 duplicate lines skipped") {
		t.Fatalf("second import: %q", out)
	}
	if out := mustCLI(t, "", "stats", "--db", db, "--namespace", "p"); !strings.Contains(out, "p: 2 notes") {
		t.Fatalf("after two imports: %s", out)
	}
}

// The same fact added twice: the second note is linked to the first as a
// restatement, unless --restatement-similarity is negative.
func TestCLIRestatement(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	for _, tc := range []struct {
		flag string
		want bool
	}{{"0.93", true}, {"-1", false}} {
		ns := "ns" + strings.TrimPrefix(tc.flag, "-")
		first := strings.TrimSpace(mustCLI(t, "", "add", "I live in Lisbon with my partner.", "--db", db, "--namespace", ns, "--restatement-similarity", tc.flag))
		second := strings.TrimSpace(mustCLI(t, "", "add", "I live in Lisbon with my partner.", "--db", db, "--namespace", ns, "--restatement-similarity", tc.flag))
		var note struct {
			Links []struct {
				Target string `json:"target"`
				Reason string `json:"reason"`
			} `json:"links"`
		}
		if err := json.Unmarshal([]byte(mustCLI(t, "", "show", second, "--db", db, "--json")), &note); err != nil {
			t.Fatal(err)
		}
		got := len(note.Links) > 0 && note.Links[0].Target == first && strings.HasPrefix(note.Links[0].Reason, "restates")
		if got != tc.want {
			t.Errorf("--restatement-similarity %s: linked as a restatement %v, want %v (links %+v)", tc.flag, got, tc.want, note.Links)
		}
	}
}

// amem add - reads the memory's text from standard input, one trailing
// newline dropped; before, it stored the text "-".
func TestAddFromStandardInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "in.db")
	text := "Decided to use PostgreSQL 16 for billing.\nLogical replication from MySQL until March."
	id := strings.TrimSpace(mustCLI(t, text+"\n", "add", "--db", db, "-"))
	var n struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "", "show", "--db", db, "--json", id)), &n); err != nil {
		t.Fatal(err)
	}
	if n.Content != text {
		t.Fatalf("stored %q, want %q", n.Content, text)
	}
}
