package mcpserver_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/mcpserver/mcptest"
	"github.com/amem-dev/amem/wire"
)

// search_memory prefers what is true now (issue 30): a superseded note
// comes right below what replaced it, with superseded_by; as_of answers
// with what was current then; exclude_superseded leaves it out.
func TestMCPSearchSupersession(t *testing.T) {
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

	old := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "Dentist appointment at 3pm on Friday.", "time": "2026-05-04"})
	nw := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "The dentist appointment moved to 4pm on Friday.", "time": "2026-05-06"})
	if got := mcptest.Call[wire.Note](t, cs, "update_memory", mcptest.Args{"id": old.ID, "validity": map[string]any{"superseded_by": nw.ID}}); got.SupersededBy != nw.ID || !got.CallerValidity {
		t.Fatalf("update_memory validity: %+v", got)
	}
	search := func(args mcptest.Args) []wire.Result {
		t.Helper()
		args["query"], args["min_score"] = "dentist appointment Friday", 0
		return mcptest.Call[wire.ResultList](t, cs, "search_memory", args).Results
	}
	if res := search(mcptest.Args{}); len(res) < 2 || res[0].ID != nw.ID || res[1].ID != old.ID || res[1].SupersededBy != nw.ID {
		t.Fatalf("now: %+v", res)
	}
	if res := search(mcptest.Args{"as_of": "2026-05-05"}); len(res) != 1 || res[0].ID != old.ID || res[0].SupersededBy != "" {
		t.Fatalf("as of the day between: %+v", res)
	}
	if res := search(mcptest.Args{"exclude_superseded": true}); len(res) != 1 || res[0].ID != nw.ID {
		t.Fatalf("without superseded notes: %+v", res)
	}
	if got := mcptest.Call[wire.Note](t, cs, "update_memory", mcptest.Args{"id": old.ID, "validity": map[string]any{}}); got.SupersededBy != "" {
		t.Fatalf("update_memory validity {}: %+v", got)
	}
	if res := search(mcptest.Args{"exclude_superseded": true}); len(res) != 2 {
		t.Fatalf("after the restore: %+v", res)
	}
}
