package main

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// embeddingsServer is an OpenAI-compatible /embeddings endpoint whose
// vectors (8 dimensions) count each text's hashed words.
func embeddingsServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		for i, text := range req.Input {
			v := make([]float32, 8)
			v[0] = 0.01 // never the zero vector
			for _, word := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				h.Write([]byte(word))
				v[h.Sum32()%8]++
			}
			data[i] = item{"embedding", i, v}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data,
			"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// isolateEmbedder clears what could choose an embedder outside the test
// (the variable, a configuration file) and leaves the default sentence
// model nowhere to load or download from, so that a command that fell
// back to it would fail at once.
func isolateEmbedder(t *testing.T) {
	t.Setenv("AMEM_EMBEDDER", "")
	t.Setenv("AMEM_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("AMEM_MODEL_DIR", t.TempDir())
	t.Setenv("PATH", "")
}

// TestNamespaceRemembersItsEmbedder: after 'amem reembed --embedder X' a
// namespace's later commands use X without the flag (add, search, a note
// named by ID alone, enrich --retry over every namespace), and a real
// mismatch names both embedders and the ways out.
func TestNamespaceRemembersItsEmbedder(t *testing.T) {
	isolateEmbedder(t)
	t.Setenv("AMEM_EMBED_BASE_URL", embeddingsServer(t).URL+"/v1")
	db := filepath.Join(t.TempDir(), "n.db")
	cli := func(args ...string) (string, error) {
		t.Helper()
		var out, errb strings.Builder
		err := run(t.Context(), append(args, "--db", db), strings.NewReader(""), &out, &errb)
		return out.String(), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := cli(args...)
		if err != nil {
			t.Fatalf("amem %v: %v", args, err)
		}
		return out
	}
	must("add", "-n", "alice", "--embedder", "lexical", "Alice adopted a dog named Rex")
	must("add", "-n", "bob", "--embedder", "lexical", "Bob plays the cello")
	must("reembed", "-n", "alice", "--embedder", "openai:tiny")

	id := strings.TrimSpace(must("add", "-n", "alice", "Alice walks Rex every morning"))
	var res []result
	if err := json.Unmarshal([]byte(must("search", "-n", "alice", "--json", "Rex")), &res); err != nil || len(res) != 2 {
		t.Fatalf("search alice without --embedder: %v %+v", err, res)
	}
	must("enrich", id) // by ID alone: the note's namespace's embedder
	must("restore", id, "1")
	must("add", "-n", "bob", "Bob tunes the cello") // bob kept lexical
	must("enrich", "--retry")                       // each namespace with its own
	for ns, want := range map[string]string{"alice": "openai-compatible:tiny", "bob": "lexical-hash-v1/"} {
		var stats []struct {
			Embedder string `json:"embedder"`
			Notes    int    `json:"notes"`
		}
		if err := json.Unmarshal([]byte(must("stats", "-n", ns, "--json")), &stats); err != nil {
			t.Fatal(err)
		}
		if len(stats) != 1 || !strings.HasPrefix(stats[0].Embedder, want) || stats[0].Notes != 2 {
			t.Fatalf("stats of %s: %+v, want 2 notes embedded by %s", ns, stats, want)
		}
	}

	_, err := cli("search", "-n", "alice", "--embedder", "lexical", "Rex")
	for _, want := range []string{
		"namespace alice is embedded with openai:tiny (openai-compatible:tiny, 8 dimensions)",
		"--embedder chose lexical (lexical-hash-v1/512/3-4, 512 dimensions)",
		"leave --embedder out",
		"'amem reembed --namespace alice --embedder lexical'",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("mismatch error %v lacks %q", err, want)
		}
	}
	// A mismatch is bad input, fixed by choosing another embedder.
	if code := exitCode(err, io.Discard); code != exitUsage {
		t.Fatalf("mismatch: exit %d, want %d", code, exitUsage)
	}
	t.Setenv("AMEM_EMBEDDER", "lexical")
	if _, err := cli("add", "-n", "alice", "x"); err == nil || !strings.Contains(err.Error(), "AMEM_EMBEDDER chose lexical") {
		t.Fatalf("mismatch chosen by the environment: %v", err)
	}
}

// BenchmarkRecordedEmbedder is what a command without --embedder pays to
// read its namespace's embedder: open the SQLite store, one read, close.
func BenchmarkRecordedEmbedder(b *testing.B) {
	db := filepath.Join(b.TempDir(), "b.db")
	var out, errb strings.Builder
	if err := run(b.Context(), []string{"add", "--db", db, "-n", "alice", "--embedder", "lexical", "x"}, strings.NewReader(""), &out, &errb); err != nil {
		b.Fatal(err)
	}
	a := &app{ctx: b.Context()}
	a.Cfg.Path = db
	b.ReportAllocs()
	for b.Loop() {
		if spec, err := a.recordedEmbedder("alice", ""); err != nil || spec != "lexical" {
			b.Fatalf("%q, %v", spec, err)
		}
	}
}
