// Package mcpserver serves an amem memory over the Model Context Protocol,
// with the official Go SDK: tools to add, search, get, update and delete
// memories and to list a memory's links and history.
//
// New is the server for a local user (amem mcp over stdio): every namespace
// is reachable. HTTPHandler serves the streamable HTTP transport, where every
// request carries an API key and a tool call reaches only the namespaces
// that key allows.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/jsonin"
	"github.com/amem-dev/amem/memory"
)

// Options configure a server.
type Options struct {
	// DefaultNamespace is used when a tool call gives none ("default" if
	// empty).
	DefaultNamespace string
	// Version is the server version reported to clients ("dev" if empty).
	Version string
	// Logger receives failures and refused calls (default slog.Default()).
	// Tokens are never logged.
	Logger *slog.Logger
	// TracerProvider makes a span per tool call (tracing.go); nil means
	// otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
}

func (o Options) withDefaults() Options {
	if o.DefaultNamespace == "" {
		o.DefaultNamespace = amem.DefaultNamespace
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// New returns an MCP server with every tool, for a local user: stdio
// gives the process to whoever started it, so every namespace is allowed.
func New(mem *memory.Memory, opts Options) *mcp.Server {
	opts = opts.withDefaults()
	def := opts.DefaultNamespace
	return newServer(mem, opts, func(_ *mcp.CallToolRequest, ns string) (string, error) {
		if ns == "" {
			return def, nil
		}
		return ns, nil
	})
}

// scope decides which namespace a tool call acts on (ns is the one the
// call gave, possibly empty) or refuses it. It runs before anything is
// read or written.
type scope func(req *mcp.CallToolRequest, ns string) (string, error)

// tools holds what the tool handlers share.
type tools struct {
	mem   *memory.Memory
	scope scope
	log   *slog.Logger
	tp    trace.TracerProvider
}

const instructions = `amem is a long-term memory after the A-Mem method (agentic memory). ` +
	`Each memory is a note; amem writes its keywords, tags and a one-line context, links it ` +
	`to related notes and updates those notes as new memories arrive. ` +
	`Store durable facts, events, preferences and decisions with add_memory, one per call. ` +
	`Before answering anything that may depend on earlier conversations, call search_memory: ` +
	`it returns the best matching notes and the notes linked to them. ` +
	`Namespaces keep separate memories apart (a user, a project); omit the namespace to use the default.`

func newServer(mem *memory.Memory, opts Options, sc scope) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "amem", Title: "amem: agentic memory", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: opts.Logger})
	t := &tools{mem: mem, scope: sc, log: opts.Logger, tp: opts.TracerProvider}
	register(srv, t, addTool, t.add)
	register(srv, t, searchTool(), t.search)
	register(srv, t, getTool, t.get)
	register(srv, t, updateTool, t.update)
	register(srv, t, deleteTool, t.delete)
	register(srv, t, linksTool, t.links)
	register(srv, t, historyTool, t.history)
	return srv
}

// namespaced is a tool input: every tool takes an optional namespace.
type namespaced interface{ namespace() string }

// register adds a tool whose handler runs only after the call's namespace
// is resolved and allowed, and whose errors reach the client as tool
// errors (IsError results) that the model can read and act on.
//
// The arguments' raw JSON is checked first: the SDK decodes invalid UTF-8
// and lone surrogate escapes into U+FFFD without a word, and a memory
// must never be stored other than as sent.
func register[In namespaced, Out any](srv *mcp.Server, t *tools, tool *mcp.Tool, h func(context.Context, string, In) (Out, error)) {
	tool = new(*tool) // the tools are shared by every server
	tool.OutputSchema = outputSchema[Out]()
	mcp.AddTool(srv, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, _ Out, err error) {
		ctx, span := t.startSpan(ctx, tool.Name)
		defer func() { endSpan(span, err) }()
		var zero Out
		if err := jsonin.Check(req.Params.Arguments, "the tool's input"); err != nil {
			return nil, zero, fmt.Errorf("%w: %v", amem.ErrInvalid, err)
		}
		ns, err := t.scope(req, in.namespace())
		if err != nil {
			return nil, zero, err
		}
		out, err := h(ctx, ns, in)
		if err != nil {
			return nil, zero, t.toolError(tool.Name, ns, err)
		}
		return nil, out, nil
	})
}

// errNotFound is the whole answer for a missing note: the same whether the
// ID never existed, was deleted or belongs to another namespace.
var errNotFound = errors.New("not found: no note with this ID in this namespace")

// toolError turns a memory error into what the client is told. Caller
// mistakes are explained so the model can correct the call; anything else
// is logged here and reported without detail, since it may name files or
// internals.
func (t *tools) toolError(tool, ns string, err error) error {
	switch {
	case errors.Is(err, amem.ErrNotFound):
		return errNotFound
	case errors.Is(err, amem.ErrInvalid), errors.Is(err, amem.ErrDimensionMismatch):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", tool, err)
	}
	t.log.Error("mcp: tool failed", "tool", tool, "namespace", ns, "err", err)
	return fmt.Errorf("%s failed: internal error (details are in the server log)", tool)
}
