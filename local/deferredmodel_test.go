package local

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem/uselite"
)

// TestDeferEmbedder: with DeferEmbedder, Open succeeds without the model
// (here: an empty directory and no npm to fetch it) and the embedder
// knows its name and width; the first Embed loads the model and reports
// what is missing. Without it, Open fails at once.
func TestDeferEmbedder(t *testing.T) {
	t.Setenv("PATH", "")
	cfg := Config{Path: filepath.Join(t.TempDir(), "d.db"), ModelDir: t.TempDir(), Curator: CuratorNone}
	if _, err := Open(t.Context(), cfg); err == nil {
		t.Fatal("Open loaded a model from an empty directory")
	}
	cfg.DeferEmbedder = true
	mem, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	emb := mem.Embedder()
	if emb.Name() != uselite.ModelName || emb.Dimensions() != uselite.Dimensions {
		t.Fatalf("deferred embedder: %s, %d dimensions", emb.Name(), emb.Dimensions())
	}
	if _, err := emb.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "amem model pull") {
		t.Fatalf("Embed without a model: %v", err)
	}
}
