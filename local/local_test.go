package local

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/fakellm"
	"github.com/amem-dev/amem/llmcurator"
	"github.com/amem-dev/amem/uselite"
)

// needModel is the sentence model's directory ($AMEM_MODEL_DIR, as the
// amem command reads it, else the default), or skips.
func needModel(tb testing.TB) string {
	dir := os.Getenv("AMEM_MODEL_DIR")
	var err error
	if dir == "" {
		dir, err = uselite.DefaultDir()
	}
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "dist", "model.json"))
	}
	if err != nil {
		tb.Skipf("SKIPPING: the USE-lite model is not installed (%v); run 'amem model pull' (CI does)", err)
	}
	return dir
}

func TestOpenDefaultStack(t *testing.T) {
	dir := needModel(t)
	ctx := context.Background()
	mem, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "x", "m.db"), ModelDir: dir})
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
	// The offline default embeds a note's content alone (EmbedText).
	got, err := mem.Get(ctx, "t", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, err := mem.Embedder().Embed(ctx, []string{a.Content})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Embedding, want[0]) {
		t.Fatal("the enriched note's vector is not its content's")
	}
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "m.db"), Embedder: "word2vec"}); !errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), "use-lite") {
		t.Fatalf("unknown embedder: %v", err)
	}
	if _, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "m.db"), Embedder: EmbedderLexical, Curator: "gpt"}); !errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("unknown curator: %v", err)
	}
	if _, err := Open(ctx, Config{Embedder: EmbedderLexical}); !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("no path: %v", err)
	}
}

func TestCuratorName(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, CuratorOffline},
		{Config{LLM: "openai:m"}, CuratorLLM},
		{Config{LLM: "openai:m", Curator: CuratorNone}, CuratorNone},
		{Config{Curator: CuratorLLM}, CuratorLLM},
	} {
		if got := tc.cfg.CuratorName(); got != tc.want {
			t.Errorf("%+v: curator %q, want %q", tc.cfg, got, tc.want)
		}
	}
}

// The llm curator takes its calls per connection and its answer bound
// from Config.
func TestLLMCuratorSettings(t *testing.T) {
	model := &fakellm.Server{}
	srv := httptest.NewServer(model)
	defer srv.Close()
	cfg := Config{LLM: "openai:" + fakellm.Model, LLMEndpoint: Endpoint{BaseURL: srv.URL + "/v1"}, ConnectCalls: "three"}
	if _, err := NewCurator(cfg, nil); err == nil || !strings.Contains(err.Error(), `"two"`) {
		t.Fatalf("bad ConnectCalls: %v", err)
	}
	cfg.ConnectCalls, cfg.LLMMaxTokens = llmcurator.TwoCalls, 2000
	cur, err := NewCurator(cfg, nil)
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
	dir := needModel(b)
	ctx := context.Background()
	mem, err := Open(ctx, Config{Path: filepath.Join(b.TempDir(), "m.db"), ModelDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer mem.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		text := benchTurn(i)
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "bench", Content: text}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// An embeddings endpoint gets its own key and headers, and nothing else.
func TestEmbedderUsesItsEndpoint(t *testing.T) {
	var auth, header string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, header = r.Header.Get("Authorization"), r.Header.Get("api-key")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","model":"emb","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"usage":{"prompt_tokens":2,"total_tokens":2}}`)
	}))
	defer srv.Close()
	cfg := Config{
		Embedder:      "openai:emb",
		EmbedEndpoint: Endpoint{BaseURL: srv.URL + "/v1", APIKey: "sk-emb", Headers: map[string]string{"api-key": "h"}},
		LLMEndpoint:   Endpoint{APIKey: "sk-llm"},
	}
	emb, err := NewEmbedder(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if emb.Dimensions() != 2 || auth != "Bearer sk-emb" || header != "h" {
		t.Fatalf("%d dimensions, Authorization %q, api-key %q", emb.Dimensions(), auth, header)
	}
}

// benchTurn is the i-th of the benchmarks' conversation turns: two
// speakers, eight topics, so notes have neighbours to link and evolve.
func benchTurn(i int) string {
	topics := []string{"painting", "adoption", "camping", "pottery", "a support group", "the violin", "running", "a new job"}
	return fmt.Sprintf("Speaker%d: last week I spent time on %s and %s.", i%2, topics[i%len(topics)], topics[(i*3+1)%len(topics)])
}

// The approximate indexes go beside a SQLite file, and for PostgreSQL
// into the user cache, named by the URL without its password (a changed
// password keeps the cache; the cache never holds it).
func TestIndexDir(t *testing.T) {
	if got := IndexDir("/data/amem.db"); got != "/data/amem.db.ann" {
		t.Errorf("sqlite: %q", got)
	}
	a := IndexDir("postgres://u:secret@db:5432/amem")
	b := IndexDir("postgres://u:other@db:5432/amem")
	c := IndexDir("postgres://u:secret@db:5432/other")
	if a == "" || a != b || a == c || strings.Contains(a, "secret") {
		t.Errorf("postgres: %q, %q, %q", a, b, c)
	}
	if got := IndexDir("ftp://x/y"); got != "" {
		t.Errorf("unsupported URL: %q", got)
	}
}
