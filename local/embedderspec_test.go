package local

import (
	"context"
	"testing"

	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/openai"
	"github.com/amem-dev/amem/uselite"
)

// TestEmbedderSpec maps the names the embedders give themselves back to
// the Config.Embedder that makes them.
func TestEmbedderSpec(t *testing.T) {
	oa, err := openai.NewEmbedder(openai.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "all-minilm"}, 384)
	if err != nil {
		t.Fatal(err)
	}
	lex, err := NewEmbedder(context.Background(), Config{Embedder: EmbedderLexical})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, spec string
		ok         bool
	}{
		{uselite.ModelName, EmbedderUSELite, true},
		{"use-lite@0.1.0", EmbedderUSELite, true},
		{lex.Name(), EmbedderLexical, true},
		{oa.Name(), "openai:all-minilm", true},
		{lexical.New(&lexical.Options{Dimensions: 64}).Name(), "", false},
		{"my-own-embedder", "", false},
		{"openai-compatible:", "", false},
	} {
		spec, ok := EmbedderSpec(tc.name)
		if spec != tc.spec || ok != tc.ok {
			t.Errorf("EmbedderSpec(%q) = %q, %v; want %q, %v", tc.name, spec, ok, tc.spec, tc.ok)
		}
	}
}
