package local

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/fakellm"
	"github.com/amem-dev/amem/uselite"
)

func needModel(tb testing.TB) {
	dir, err := uselite.DefaultDir()
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "dist", "model.json"))
	}
	if err != nil {
		tb.Skipf("SKIPPING: the USE-lite model is not installed (%v); run 'amem model pull' (CI does)", err)
	}
}

func TestOpenDefaultStack(t *testing.T) {
	needModel(t)
	ctx := context.Background()
	mem, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "x", "m.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if got := mem.Embedder().Name(); got != "use-lite@0.2.0" {
		t.Fatalf("default embedder %s", got)
	}
	a, err := mem.Add(ctx, amem.AddRequest{Namespace: "t", Content: "Caroline: I went to an LGBTQ support group yesterday."})
	if err != nil {
		t.Fatal(err)
	}
	b, err := mem.Add(ctx, amem.AddRequest{Namespace: "t", Content: "Caroline: the support group helped me accept myself."})
	if err != nil {
		t.Fatal(err)
	}
	if a.Context == "" || len(a.Keywords) == 0 || len(a.Tags) == 0 {
		t.Fatalf("offline curator did not construct: %+v", a)
	}
	if b.Enrichment.State != amem.EnrichDone || len(b.Links) == 0 || b.Links[0].Target != a.ID {
		t.Fatalf("related notes not linked: %+v", b.Links)
	}
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "m.db"), Embedder: "word2vec"}); err == nil || !strings.Contains(err.Error(), "use-lite") {
		t.Fatalf("unknown embedder: %v", err)
	}
	if _, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "m.db"), Embedder: EmbedderLexical, Curator: "gpt"}); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("unknown curator: %v", err)
	}
	t.Setenv("AMEM_DB", "/some/where.db")
	if p, _ := DefaultPath(); p != "/some/where.db" {
		t.Fatalf("AMEM_DB ignored: %s", p)
	}
}

func TestConnectCallsFromEnvironment(t *testing.T) {
	model := &fakellm.Server{}
	srv := httptest.NewServer(model)
	defer srv.Close()
	t.Setenv("AMEM_CONNECT_CALLS", "three")
	if _, err := NewCurator(CuratorLLM, "openai:"+fakellm.Model, srv.URL+"/v1", nil, nil); err == nil || !strings.Contains(err.Error(), `"two"`) {
		t.Fatalf("bad AMEM_CONNECT_CALLS: %v", err)
	}
	t.Setenv("AMEM_CONNECT_CALLS", "two")
	t.Setenv("AMEM_LLM_MAX_TOKENS", "lots")
	if _, err := NewCurator(CuratorLLM, "openai:"+fakellm.Model, srv.URL+"/v1", nil, nil); err == nil || !strings.Contains(err.Error(), "AMEM_LLM_MAX_TOKENS") {
		t.Fatalf("bad AMEM_LLM_MAX_TOKENS: %v", err)
	}
	t.Setenv("AMEM_LLM_MAX_TOKENS", "2000")
	cur, err := NewCurator(CuratorLLM, "openai:"+fakellm.Model, srv.URL+"/v1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cand := amem.Candidate{Note: amem.Note{ID: "01H00000000000000000000AAA", Content: "support group on tuesday"}}
	if _, err := cur.Connect(context.Background(), amem.Note{Content: "support group moved"}, []amem.Candidate{cand}); err != nil {
		t.Fatal(err)
	}
	// The fake model links every candidate, so two calls: links, then evolution.
	model.Mu.Lock()
	defer model.Mu.Unlock()
	if len(model.Prompts) != 2 || model.MaxTokens[0] != 2000 || model.MaxTokens[1] != 2000 {
		t.Fatalf("%d model calls, max tokens %v; want 2 calls of 2000", len(model.Prompts), model.MaxTokens)
	}
}

// BenchmarkAddDefault is the write path of the offline default: USE lite
// embeddings and the offline curator, with enrichment, links and evolution.
func BenchmarkAddDefault(b *testing.B) {
	needModel(b)
	ctx := context.Background()
	mem, err := Open(ctx, Config{Path: filepath.Join(b.TempDir(), "m.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer mem.Close()
	topics := []string{"painting", "adoption", "camping", "pottery", "a support group", "the violin", "running", "a new job"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		text := fmt.Sprintf("Speaker%d: last week I spent time on %s and %s.", i%2, topics[i%len(topics)], topics[(i*3+1)%len(topics)])
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "bench", Content: text}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// An embeddings server of its own (AMEM_EMBED_BASE_URL) gets only
// AMEM_EMBED_API_KEY: never the LLM's key or gateway headers.
func TestEmbeddingsServerGetsOnlyItsOwnKey(t *testing.T) {
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
	for _, key := range []string{"", "sk-emb"} {
		t.Setenv("AMEM_EMBED_API_KEY", key)
		if _, err := NewEmbedder(context.Background(), "openai:emb", "", nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(auth) != 2 || auth[0] != "" || auth[1] != "Bearer sk-emb" || header[0] != "" || header[1] != "" {
		t.Fatalf("Authorization %q, api-key %q", auth, header)
	}
}
