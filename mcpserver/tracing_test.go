package mcpserver_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/mcpserver/mcptest"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

// TestToolCallSpans checks that a tool call is a span named after it, the
// parent of the Memory's spans, an error span when the call fails, and
// that its arguments are not in it.
func TestToolCallSpans(t *testing.T) {
	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	mem, _, err := local.OpenWithStore(ctx, local.Config{
		Path:     filepath.Join(t.TempDir(), "amem.db"),
		Embedder: local.EmbedderLexical, Curator: local.CuratorOffline,
		Logger: slog.New(slog.DiscardHandler), Options: memory.Options{Enrich: enrich.Options{Async: true}, TracerProvider: tp},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	srv := mcpserver.New(mem, mcpserver.Options{DefaultNamespace: "alice", Logger: slog.New(slog.DiscardHandler), TracerProvider: tp})
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

	mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "the okapi sleeps"})
	mcptest.CallError(t, cs, "get_memory", mcptest.Args{"id": "01H00000000000000000000XYZ"})

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
		for _, kv := range s.Attributes() {
			if v := kv.Value.Emit(); strings.Contains(v, "okapi") {
				t.Errorf("span %s attribute %s holds the note: %s", s.Name(), kv.Key, v)
			}
		}
	}
	add, ok := byName["tools/call add_memory"]
	if !ok {
		t.Fatalf("no add_memory span among %v", byName)
	}
	if got := attrOf(add, "gen_ai.tool.name"); got != "add_memory" {
		t.Errorf("tool name %q", got)
	}
	if child, ok := byName["amem.Add"]; !ok || child.Parent().SpanID() != add.SpanContext().SpanID() {
		t.Errorf("amem.Add is not a child of the tool call's span")
	}
	if add.Status().Code != codes.Unset {
		t.Errorf("add_memory status %v", add.Status())
	}
	get, ok := byName["tools/call get_memory"]
	if !ok || get.Status().Code != codes.Error {
		t.Errorf("get_memory of a missing note: %v", get)
	}
}

func attrOf(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}
