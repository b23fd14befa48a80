package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	amem "github.com/amem-dev/amem"
)

// embeddingList is a /embeddings answer as OpenAI sends it, for inputs
// whose vectors are given in the order they are listed, at the indices
// given.
func embeddingList(model string, indices []int, vectors [][]float32) string {
	data := make([]any, len(indices))
	for i, idx := range indices {
		data[i] = map[string]any{"object": "embedding", "index": idx, "embedding": vectors[i]}
	}
	b, _ := json.Marshal(map[string]any{
		"object": "list",
		"data":   data,
		"model":  model,
		"usage":  map[string]any{"prompt_tokens": 8, "total_tokens": 8},
	})
	return string(b)
}

// vectorFor encodes an input as a vector so the test can see where each
// input's vector ended up: its length in characters, then dims-1 zeros.
func vectorFor(s string, dims int) []float32 {
	v := make([]float32, dims)
	v[0] = float32(len(s))
	return v
}

// embedServer answers each request with vectors for its inputs, listed in
// reverse order (the index field says where each belongs).
func embedServer(t *testing.T, dims func(n int) int) *fakeServer {
	return newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		in, _ := body["input"].([]any)
		var indices []int
		var vecs [][]float32
		for i := len(in) - 1; i >= 0; i-- {
			s, _ := in[i].(string)
			indices = append(indices, i)
			vecs = append(vecs, vectorFor(s, dims(n)))
		}
		writeJSON(w, 200, "req_emb", embeddingList("all-minilm", indices, vecs))
	})
}

func TestEmbedBatches(t *testing.T) {
	srv := embedServer(t, func(int) int { return 3 })
	e, err := NewEmbedder(Config{BaseURL: srv.URL + "/v1", Model: "all-minilm", BatchSize: 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "", "dddd", "eeeee"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 2, 1, 4, 5} // "" went as " "
	for i, v := range got {
		if len(v) != 3 || v[0] != want[i] {
			t.Errorf("vector %d = %v, want first component %v", i, v, want[i])
		}
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	sizes := map[int]bool{}
	for _, r := range reqs {
		if r.Path != "/v1/embeddings" || r.Body["model"] != "all-minilm" || r.Body["encoding_format"] != "float" {
			t.Errorf("request %s %v", r.Path, r.Body)
		}
		if r.Auth != "" {
			t.Errorf("Authorization = %q without a key", r.Auth)
		}
		in := r.Body["input"].([]any)
		sizes[len(in)] = true
		for _, s := range in {
			if s == "" {
				t.Error("an empty input was sent")
			}
		}
	}
	if !sizes[3] || !sizes[2] {
		t.Errorf("batch sizes %v, want 3 and 2", sizes)
	}
	if e.Dimensions() != 3 {
		t.Errorf("Dimensions = %d", e.Dimensions())
	}
	if got, err := e.Embed(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v", got, err)
	}
}

func TestEmbedDimensions(t *testing.T) {
	t.Run("fixed mismatch", func(t *testing.T) {
		srv := embedServer(t, func(int) int { return 4 })
		e, err := NewEmbedder(Config{BaseURL: srv.URL + "/v1", Model: "all-minilm"}, 384)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Embed(context.Background(), []string{"a"})
		if pe := providerError(t, err); pe.Retryable || pe.RequestID != "req_emb" {
			t.Errorf("error = %+v", pe)
		}
	})
	t.Run("first response fixes it", func(t *testing.T) {
		srv := embedServer(t, func(n int) int { return 4 + n }) // 4, then 5
		e, err := NewEmbedder(Config{BaseURL: srv.URL + "/v1", Model: "all-minilm"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if e.Dimensions() != 0 {
			t.Errorf("Dimensions before any call = %d", e.Dimensions())
		}
		if _, err := e.Embed(context.Background(), []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
		if e.Dimensions() != 4 {
			t.Errorf("Dimensions = %d, want 4", e.Dimensions())
		}
		if _, err := e.Embed(context.Background(), []string{"c"}); err == nil {
			t.Error("a 5-dimension vector after 4 was accepted")
		}
	})
}

func TestEmbedBadResponse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		indices []int
	}{
		{"missing vector", []int{0}},
		{"duplicate index", []int{0, 0}},
		{"index out of range", []int{0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				vecs := make([][]float32, len(tc.indices))
				for i := range vecs {
					vecs[i] = []float32{1, 2}
				}
				writeJSON(w, 200, "req", embeddingList("m", tc.indices, vecs))
			})
			e, err := NewEmbedder(Config{BaseURL: srv.URL + "/v1", Model: "m"}, 2)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{"a", "b"})
			providerError(t, err)
		})
	}
}

func TestEmbedError(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		writeJSON(w, 404, "req_404", apiError("model \"nope\" not found, try pulling it first", "api_error", ""))
	})
	e, err := NewEmbedder(Config{BaseURL: srv.URL + "/v1", Model: "nope", BatchSize: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"a", "b", "c"})
	pe := providerError(t, err)
	if pe.Status != 404 || pe.Retryable || pe.RequestID != "req_404" {
		t.Errorf("error = %+v", pe)
	}
}

func TestEmbedderName(t *testing.T) {
	e, err := NewEmbedder(Config{Model: "text-embedding-3-small"}, 1536)
	if err != nil {
		t.Fatal(err)
	}
	var _ amem.Embedder = e
	if got := e.Name(); got != "openai-compatible:text-embedding-3-small" {
		t.Errorf("Name = %q", got)
	}
	if e.Dimensions() != 1536 {
		t.Errorf("Dimensions = %d", e.Dimensions())
	}
	if _, err := NewEmbedder(Config{Model: "m"}, -1); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("negative dims: %v", err)
	}
}
