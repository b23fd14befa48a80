package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// amem config shows what was resolved, API keys and header values masked.
func TestCLIConfig(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("AMEM_LLM", "openai:gpt-4o-mini")
	t.Setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
	t.Setenv("OPENAI_API_KEY", "sk-0123456789abcdefWXYZ")
	t.Setenv("AMEM_LLM_API_KEY", "")
	t.Setenv("AMEM_LLM_BASE_URL", "")
	t.Setenv("AMEM_LLM_HEADERS", "api-key=header-secret")
	t.Setenv("AMEM_CONNECT_CALLS", "two")
	out := mustCLI(t, "", "config", "--db", "x.db")
	for _, want := range []string{"x.db", "lexical", "openai:gpt-4o-mini", "http://localhost:11434/v1", "***WXYZ", "api-key=***", "two", "llm"} {
		if !strings.Contains(out, want) {
			t.Errorf("amem config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0123456789") || strings.Contains(out, "header-secret") {
		t.Errorf("amem config shows a secret:\n%s", out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "", "config", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if s := v["llm_server"].(map[string]any); s["api_key"] != "***WXYZ" || v["connect_calls"] != "two" {
		t.Errorf("amem config --json: %v", v)
	}
}

// The whole path, environment to request: an embeddings server of its
// own gets its own key and none of the LLM's.
func TestCLIEmbeddingsServerGetsOnlyItsOwnKey(t *testing.T) {
	var auth, header []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, header = append(auth, r.Header.Get("Authorization")), append(header, r.Header.Get("api-key"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","model":"emb","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"usage":{"prompt_tokens":2,"total_tokens":2}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", "https://llm.example/v1")
	t.Setenv("OPENAI_API_KEY", "sk-llm")
	t.Setenv("AMEM_LLM_HEADERS", "api-key=llm-secret")
	t.Setenv("AMEM_EMBED_BASE_URL", srv.URL+"/v1")
	t.Setenv("AMEM_EMBEDDER", "openai:emb")
	for _, key := range []string{"", "sk-emb"} {
		t.Setenv("AMEM_EMBED_API_KEY", key)
		var out, errb strings.Builder
		if err := run(t.Context(), []string{"embed", "--json", "hello"}, strings.NewReader(""), &out, &errb); err != nil {
			t.Fatalf("%v\n%s", err, errb.String())
		}
	}
	// Each run probes the dimension, then embeds.
	if len(auth) != 4 || auth[0] != "" || auth[2] != "Bearer sk-emb" || strings.Join(header, "") != "" {
		t.Fatalf("Authorization %q, api-key %q", auth, header)
	}
}
