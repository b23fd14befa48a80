package mcpserver_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/mcpserver/mcptest"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

// TestMCPSearchFilters: search_memory's filters find every matching note
// in every mode, however many better-ranked notes fail them, and
// add_memory keeps metadata to filter by.
func TestMCPSearchFilters(t *testing.T) {
	ctx := context.Background()
	mem, _ := openMemory(t, slog.New(slog.DiscardHandler))
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

	// No wait: the notes stay pending, with the tags given them.
	for i := range 40 {
		mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{
			"content": strings.Repeat("garden ", 1+i%5) + "plot", "tags": []string{"common"}, "time": "2024-01-10"})
	}
	for i := range 3 {
		n := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{
			"content": fmt.Sprintf("a long walk past the river to a garden, day %d", i+1), "tags": []string{"Rare"},
			"time": fmt.Sprintf("2024-03-%02dT12:00:00Z", i+1), "metadata": map[string]string{"source": "email"}})
		if got, _ := mem.Get(ctx, "default", n.ID); got.Metadata["source"] != "email" {
			t.Fatalf("add_memory with metadata stored %v", got.Metadata)
		}
	}
	all := []string{"day 1", "day 2", "day 3"}
	for _, mode := range []string{"lexical", "vector", "hybrid"} {
		for _, c := range []struct {
			args mcptest.Args
			want []string
		}{
			{mcptest.Args{"tags": []string{"rare"}}, all},
			{mcptest.Args{"from": "2024-03-01", "to": "2024-03-03"}, []string{"day 1", "day 2"}},
			{mcptest.Args{"from": "2024-03-02T12:00:00Z"}, []string{"day 2", "day 3"}},
			{mcptest.Args{"metadata": map[string]string{"source": "email"}}, all},
			{mcptest.Args{"metadata": map[string]string{"source": "email"}, "tags": []string{"RARE"}, "to": "2024-03-02"}, []string{"day 1"}},
			{mcptest.Args{"metadata": map[string]string{"source": "Email"}}, nil},
		} {
			args := mcptest.Args{"query": "garden", "mode": mode}
			for k, v := range c.args {
				args[k] = v
			}
			var got []string
			for _, r := range mcptest.Call[wire.ResultList](t, cs, "search_memory", args).Results {
				d, ok := strings.CutPrefix(r.Content, "a long walk past the river to a garden, ")
				if !ok {
					d = "a common note"
				}
				got = append(got, d)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("search_memory(%v): %v, want %v", args, got, c.want)
			}
		}
	}
}

// TestMCPSearchFloor: search_memory leaves out direct hits below the
// floor measured for the memory's relevance curves unless the call names
// its own; min_score 0 keeps every hit, and a floor out of [0, 1] is an
// error the model can read.
func TestMCPSearchFloor(t *testing.T) {
	ctx := context.Background()
	rel := memory.DefaultRelevance
	rel.MinScore = 0.5
	mem, _, err := local.OpenWithStore(ctx, local.Config{
		Path: filepath.Join(t.TempDir(), "amem.db"), Embedder: local.EmbedderLexical, Curator: local.CuratorNone,
		Logger: slog.New(slog.DiscardHandler), Options: memory.Options{Search: memory.SearchOptions{Relevance: &rel}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
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
	for _, c := range []string{"Prefers aisle seats on long flights.", "The quarterly budget review moved to Thursday.", "Allergic to penicillin."} {
		mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": c})
	}
	search := func(args mcptest.Args) []wire.Result {
		t.Helper()
		args["query"] = "Prefers aisle seats on long flights."
		return mcptest.Call[wire.ResultList](t, cs, "search_memory", args).Results
	}
	floored := search(mcptest.Args{})
	if len(floored) != 1 || floored[0].Score < 0.5 || !strings.HasPrefix(floored[0].Content, "Prefers aisle") {
		t.Fatalf("with the measured floor 0.5: %+v, want the note itself alone", floored)
	}
	if all := search(mcptest.Args{"min_score": 0}); len(all) != 3 {
		t.Fatalf("min_score 0: %d hits, want all 3", len(all))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memory", Arguments: map[string]any{"query": "seats", "min_score": 2}})
	if err == nil && !res.IsError {
		t.Fatalf("min_score 2: %+v, want an error", res)
	}
}
