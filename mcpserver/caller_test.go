package mcpserver_test

import (
	"context"
	"path/filepath"
	"slices"
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

// TestMCPCallerAttributes: a context given to add_memory or
// update_memory is the caller's, which the tools' output says
// (caller_set) and re-enrichment keeps; give_back returns it to the
// curator.
func TestMCPCallerAttributes(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "amem.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const curated = "Curator context."
	cur := &mock.Curator{ConstructFunc: func(context.Context, amem.Note) (amem.Attributes, error) {
		return amem.Attributes{Keywords: []string{"curator-kw"}, Context: curated}, nil
	}}
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Curator: cur})
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

	want := func(what string, n wire.Note, context string, callerSet ...string) {
		t.Helper()
		if n.Context != context || !slices.Equal(n.CallerSet, append([]string{}, callerSet...)) {
			t.Errorf("%s: context %q, caller_set %q; want %q, %q", what, n.Context, n.CallerSet, context, callerSet)
		}
	}
	n := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "Rex is my dog", "context": "Mine.", "keywords": []string{"Rex"}})
	want("add_memory", n, "Mine.", "keywords", "context")
	n = mcptest.Call[wire.Note](t, cs, "update_memory", mcptest.Args{"id": n.ID, "content": "Rex is my old dog", "context": "Still mine."})
	want("update_memory with content", n, "Still mine.", "keywords", "context")
	n = mcptest.Call[wire.Note](t, cs, "update_memory", mcptest.Args{"id": n.ID, "give_back": []string{"context", "keywords"}})
	want("update_memory give_back", n, curated)
	if !slices.Equal(n.Keywords, []string{"Rex", "curator-kw"}) {
		t.Errorf("keywords given back: %q, want the curator's added to them", n.Keywords)
	}
	mcptest.CallError(t, cs, "update_memory", mcptest.Args{"id": n.ID, "give_back": []string{"tags"}})
}
