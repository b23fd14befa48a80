package mcpserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/mcpserver/mcptest"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

// openMemory opens a memory as amem mcp does (asynchronous enrichment)
// over a temporary SQLite file, with the lexical embedder and the offline
// curator: no model download. No workers run, so a note added without
// wait stays pending.
func openMemory(t *testing.T, logger *slog.Logger) (*memory.Memory, local.Store) {
	t.Helper()
	mem, st, err := local.OpenWithStore(context.Background(), local.Config{
		Path:     filepath.Join(t.TempDir(), "amem.db"),
		Embedder: local.EmbedderLexical, Curator: local.CuratorOffline,
		Logger: logger, Options: memory.Options{Enrich: enrich.Options{Async: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	return mem, st
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "mcpserver-test", Version: "v0"}, nil)
}

func countNotes(t *testing.T, mem *memory.Memory, ns string) int {
	t.Helper()
	notes, err := mem.List(context.Background(), ns, amem.ListQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return len(notes)
}

// logBuffer collects a server's log for the test to read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestMCPInMemoryEveryTool(t *testing.T) {
	ctx := context.Background()
	mem, _ := openMemory(t, slog.New(slog.DiscardHandler))
	srv := mcpserver.New(mem, mcpserver.Options{DefaultNamespace: "alice", Version: "v1.2.3"})
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := newClient().Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info.Name != "amem" || info.Version != "v1.2.3" {
		t.Fatalf("server info %+v", info)
	}

	mcptest.Exercise(t, cs, "")
	if n := countNotes(t, mem, "alice"); n != 3 {
		t.Fatalf("the default namespace holds %d notes, want the 3 the scenario keeps", n)
	}
	// Over stdio the local user reaches every namespace.
	mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "a note for bob", "namespace": "bob"})
	if n := countNotes(t, mem, "bob"); n != 1 {
		t.Fatalf("namespace bob holds %d notes, want 1", n)
	}
}
