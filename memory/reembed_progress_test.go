package memory_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
)

// TestReembedProgress: ReembedWith reports each batch, counting up to
// the namespace's notes, and a mismatch before it is an
// EmbedderMismatchError naming both embedders.
func TestReembedProgress(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	mem := openAt(t, path, nil)
	reqs := make([]amem.AddRequest, 130)
	for i := range reqs {
		reqs[i] = amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("note number %d", i)}
	}
	if _, err := mem.AddBatch(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	mem.Close()

	small := lexical.New(&lexical.Options{Dimensions: 64})
	mem2 := openOpts(t, path, memory.Options{Embedder: small})
	defer mem2.Close()
	_, err := mem2.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "note"})
	var me *amem.EmbedderMismatchError
	if !errors.As(err, &me) || !errors.Is(err, amem.ErrDimensionMismatch) {
		t.Fatalf("search before re-embed: %v, want an EmbedderMismatchError", err)
	}
	if me.Namespace != "ns" || me.Stored != lexical.New(nil).Name() || me.StoredDimensions != 512 ||
		me.Configured != small.Name() || me.Dimensions != 64 {
		t.Fatalf("mismatch %+v", me)
	}
	var calls [][2]int
	n, err := mem2.ReembedWith(ctx, "ns", memory.ReembedOptions{Progress: func(done, total int) {
		calls = append(calls, [2]int{done, total})
	}})
	if err != nil || n != 130 {
		t.Fatalf("ReembedWith = %d, %v", n, err)
	}
	want := [][2]int{{64, 130}, {128, 130}, {130, 130}}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Fatalf("progress %v, want %v", calls, want)
	}
}
