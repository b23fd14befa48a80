package mcpserver_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/mcpserver/mcptest"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/mock"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/wire"
)

// TestMCPTagSource: results show the curator's tags, and tag_source
// narrows the tags filter to one source.
func TestMCPTagSource(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "amem.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dogs := &mock.Curator{ConstructFunc: func(_ context.Context, n amem.Note) (amem.Attributes, error) {
		if strings.Contains(n.Content, "dog") {
			return amem.Attributes{Tags: []string{"pets"}}, nil
		}
		return amem.Attributes{}, nil
	}}
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Curator: dogs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(mem, mcpserver.Options{}).Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := newClient().Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	given := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "my dog Rex", "tags": []string{"pets"}})
	guessed := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "walked past a dog"})
	if !slices.Equal(guessed.CuratorTags, []string{"pets"}) || len(given.CuratorTags) != 0 {
		t.Fatalf("add_memory: curator tags %v and %v, want [] and [pets]", given.CuratorTags, guessed.CuratorTags)
	}
	for source, want := range map[string][]string{
		"":        {given.ID, guessed.ID},
		"caller":  {given.ID},
		"curator": {guessed.ID},
	} {
		args := mcptest.Args{"query": "dog", "tags": []string{"pets"}}
		if source != "" {
			args["tag_source"] = source
		}
		var got []string
		for _, r := range mcptest.Call[wire.ResultList](t, cs, "search_memory", args).Results {
			got = append(got, r.ID)
			if r.ID == guessed.ID && !slices.Equal(r.CuratorTags, []string{"pets"}) {
				t.Errorf("result curator tags %v, want [pets]", r.CuratorTags)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("search_memory tag_source=%q: %v, want %v", source, got, want)
		}
	}
	if msg := mcptest.CallError(t, cs, "search_memory", mcptest.Args{"query": "dog", "tags": []string{"pets"}, "tag_source": "robot"}); !strings.Contains(msg, "tag_source") {
		t.Errorf("tag_source=robot: %q, want an error naming tag_source", msg)
	}
}
