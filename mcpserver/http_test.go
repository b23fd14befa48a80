package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/mcpserver/mcptest"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

// httpFixture is HTTPHandler on a test server, over a memory whose store
// holds the API keys.
type httpFixture struct {
	url   string
	mem   *memory.Memory
	store local.Store
	log   *logBuffer
}

func serveHTTP(t *testing.T) *httpFixture {
	t.Helper()
	log := &logBuffer{}
	mem, st := openMemory(t, log.logger())
	srv := httptest.NewServer(mcpserver.HTTPHandler(mem, st, mcpserver.Options{Logger: log.logger()}))
	t.Cleanup(srv.Close)
	return &httpFixture{url: srv.URL, mem: mem, store: st, log: log}
}

// key stores a new API key and returns its token.
func (f *httpFixture) key(t *testing.T, admin bool, namespaces ...string) (auth.Key, string) {
	t.Helper()
	k, token, err := auth.NewKey("test", admin, namespaces, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if strings.Contains(f.log.String(), token) {
			t.Errorf("the server logged a token:\n%s", f.log.String())
		}
	})
	return k, token
}

func (f *httpFixture) connect(t *testing.T, token string) (*mcp.ClientSession, error) {
	t.Helper()
	return mcptest.ConnectHTTP(t, f.url, token)
}

func (f *httpFixture) mustConnect(t *testing.T, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := f.connect(t, token)
	if err != nil {
		t.Fatalf("connecting with a valid key: %v", err)
	}
	return cs
}

// initialize is the first message of an MCP session.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// post sends one JSON-RPC message, with the headers edit sets, and
// returns the status and body.
func (f *httpFixture) post(t *testing.T, body string, edit func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	edit(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func withKey(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

func TestMCPHTTPEveryTool(t *testing.T) {
	f := serveHTTP(t)
	_, token := f.key(t, false, "a")
	mcptest.Exercise(t, f.mustConnect(t, token), "a")
	if n := countNotes(t, f.mem, "a"); n != 3 {
		t.Fatalf("namespace a holds %d notes, want the 3 the scenario keeps", n)
	}
}

func TestMCPHTTPRefusesRequestsWithoutAValidKey(t *testing.T) {
	f := serveHTTP(t)
	// A note the refused requests must not reach.
	if _, err := f.mem.Add(context.Background(), amem.AddRequest{Namespace: amem.DefaultNamespace, Content: "the launch code is 0000"}); err != nil {
		t.Fatal(err)
	}
	revoked, revokedToken := f.key(t, true)
	if err := f.store.RevokeKey(context.Background(), revoked.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	for name, authorization := range map[string]string{
		"no key":        "",
		"not bearer":    "Basic dXNlcjpwYXNz",
		"unknown key":   "Bearer " + auth.Prefix + strings.Repeat("x", 43),
		"malformed key": "Bearer not-an-amem-key",
		"revoked key":   "Bearer " + revokedToken,
	} {
		status, body := f.post(t, initialize, func(r *http.Request) {
			if authorization != "" {
				r.Header.Set("Authorization", authorization)
			}
		})
		if status != http.StatusUnauthorized || strings.Contains(body, "launch") || strings.Contains(body, "amem") {
			t.Errorf("%s: status %d, body %q; want 401 and nothing else", name, status, body)
		}
	}
	if _, err := f.connect(t, revokedToken); err == nil {
		t.Fatal("the SDK client connected with a revoked key")
	}
}

func TestMCPHTTPRevokedKeyStopsItsSession(t *testing.T) {
	f := serveHTTP(t)
	k, token := f.key(t, false, "a")
	cs := f.mustConnect(t, token)
	mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "before revocation", "namespace": "a"})
	if err := f.store.RevokeKey(context.Background(), k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_memory", Arguments: mcptest.Args{"content": "after revocation", "namespace": "a"}})
	if err == nil {
		t.Fatal("a tool call with a revoked key succeeded")
	}
	if n := countNotes(t, f.mem, "a"); n != 1 {
		t.Fatalf("namespace a holds %d notes after a refused call, want 1", n)
	}
}

func TestMCPHTTPSessionIsBoundToItsKey(t *testing.T) {
	f := serveHTTP(t)
	_, tokenA := f.key(t, false, "a")
	_, tokenB := f.key(t, false, "b")
	cs := f.mustConnect(t, tokenA)
	call := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"x","namespace":"a"}}}`
	status, _ := f.post(t, call, func(r *http.Request) {
		withKey(tokenB)(r)
		r.Header.Set("Mcp-Session-Id", cs.ID())
		r.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	})
	if status != http.StatusForbidden {
		t.Fatalf("another key using a's session: status %d, want 403", status)
	}
}

// A reverse proxy on the same host reaches the server on a loopback
// address with the public host name: the key, not the address, decides.
func TestMCPHTTPBehindAProxy(t *testing.T) {
	f := serveHTTP(t)
	_, token := f.key(t, false, "a")
	status, body := f.post(t, initialize, func(r *http.Request) {
		withKey(token)(r)
		r.Host = "memory.example.com"
	})
	if status != http.StatusOK {
		t.Fatalf("initialize through a proxy: status %d, %s", status, body)
	}
}

func TestMCPHTTPNamespaceNotAllowed(t *testing.T) {
	f := serveHTTP(t)
	ctx := context.Background()
	secret, err := f.mem.Add(ctx, amem.AddRequest{Namespace: "b", Content: "b's secret plan", Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	_, token := f.key(t, false, "a")
	cs := f.mustConnect(t, token)

	const missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	var answers []string
	for _, ns := range []string{"b", "c"} { // b exists, c does not
		for _, id := range []string{secret.ID, missing} {
			for _, c := range []struct {
				tool string
				args mcptest.Args
			}{
				{"get_memory", mcptest.Args{"id": id}},
				{"memory_links", mcptest.Args{"id": id}},
				{"memory_history", mcptest.Args{"id": id}},
				{"update_memory", mcptest.Args{"id": id, "content": "overwritten"}},
				{"delete_memory", mcptest.Args{"id": id}},
				{"add_memory", mcptest.Args{"content": "planted", "wait": true}},
				{"search_memory", mcptest.Args{"query": "secret plan"}},
			} {
				c.args["namespace"] = ns
				answers = append(answers, mcptest.CallError(t, cs, c.tool, c.args))
			}
		}
	}
	if answers = slices.Compact(answers); len(answers) != 1 || strings.Contains(answers[0], "secret") || strings.Contains(answers[0], "not found") {
		t.Fatalf("refusals differ or tell something: %q", answers)
	}
	after, err := f.mem.Get(ctx, "b", secret.ID)
	if err != nil || after.Version != secret.Version || after.Content != secret.Content {
		t.Fatalf("b's note after refused calls: %+v, %v", after, err)
	}
	if n := countNotes(t, f.mem, "b"); n != 1 {
		t.Fatalf("namespace b holds %d notes after refused calls, want 1", n)
	}
	nss, err := f.mem.Namespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(nss, func(n amem.NamespaceInfo) bool { return n.Name == "c" }) {
		t.Fatal("a refused call created namespace c")
	}

	// A call that names no namespace gets the key's only one; a key with
	// several must name one.
	n := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "no namespace given"})
	if n.Namespace != "a" {
		t.Fatalf("add_memory without a namespace stored in %q, want the key's namespace a", n.Namespace)
	}
	_, token2 := f.key(t, false, "a", "d")
	msg := mcptest.CallError(t, f.mustConnect(t, token2), "add_memory", mcptest.Args{"content": "no namespace given"})
	if !strings.Contains(msg, "give a namespace: this API key allows a, d") {
		t.Fatalf("add_memory without a namespace, with a key for two: %q", msg)
	}
}

func TestMCPHTTPAdminKeyReachesEveryNamespace(t *testing.T) {
	f := serveHTTP(t)
	_, token := f.key(t, true)
	cs := f.mustConnect(t, token)
	for _, ns := range []string{"a", "b"} {
		n := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "a note in " + ns, "namespace": ns})
		got := mcptest.Call[wire.Note](t, cs, "get_memory", mcptest.Args{"id": n.ID, "namespace": ns})
		if got.ID != n.ID || got.Namespace != ns {
			t.Fatalf("admin get_memory in %s: %+v", ns, got)
		}
	}
	n := mcptest.Call[wire.Note](t, cs, "add_memory", mcptest.Args{"content": "no namespace given"})
	if n.Namespace != amem.DefaultNamespace {
		t.Fatalf("admin add_memory without a namespace stored in %q, want %q", n.Namespace, amem.DefaultNamespace)
	}
}
