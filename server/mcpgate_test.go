package server

import (
	"bytes"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem/mcpserver"
)

// mcpTestServer serves a memory with MCP at /mcp, as amem serve does,
// with opts and, on its listener, the connection limits lim.
func mcpTestServer(t *testing.T, opts Options, lim ConnLimits) (*env, *httptest.Server) {
	e := newEnv(t, Options{})
	quiet := slog.New(slog.DiscardHandler)
	opts.Keys, opts.Logger = e.store, quiet
	opts.MCP = mcpserver.HTTPHandler(e.mem, e.store, mcpserver.Options{Logger: quiet})
	srv := httptest.NewUnstartedServer(New(e.mem, opts))
	srv.Listener = Listener(srv.Listener, lim)
	srv.Start()
	t.Cleanup(srv.Close)
	return e, srv
}

// mcpServer is mcpTestServer's memory and /mcp URL.
func mcpServer(t *testing.T, opts Options) (*env, string) {
	e, srv := mcpTestServer(t, opts, ConnLimits{})
	return e, srv.URL + "/mcp"
}

// mcpCall POSTs one JSON-RPC message to /mcp and returns the status, the
// session ID the answer names and the body.
func mcpCall(t *testing.T, url, key, session, msg string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(mcpSessionHeader, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(mcpSessionHeader), string(body)
}

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// /mcp is under the key's rate limit: at 5 requests a second (bursts of
// 10), 40 quick tool-list calls of one session are mostly refused with
// 429 and Retry-After, as REST's are.
func TestMCPUnderKeyRate(t *testing.T) {
	e, url := mcpServer(t, Options{KeyRate: 5, MCPSessionsPerKey: -1})
	key, _ := e.key("a")
	status, session, body := mcpCall(t, url, key, "", mcpInitialize)
	if status != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %q %s", status, session, body)
	}
	mcpCall(t, url, key, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	accepted, refused := 0, 0
	start := time.Now()
	for i := range 40 {
		status, _, body := mcpCall(t, url, key, session, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+2)+`,"method":"tools/list"}`)
		switch status {
		case http.StatusOK:
			accepted++
		case http.StatusTooManyRequests:
			refused++
			if !strings.Contains(body, "rate limit") {
				t.Errorf("429 body %s", body)
			}
		default:
			t.Fatalf("call %d: %d %s", i, status, body)
		}
	}
	// The bucket holds 10 (twice the rate) and refills 5 a second, and
	// the two calls above took 2 (the bound leaves them in): on a busy
	// machine the 40 calls take
	// longer and more are due, so the bound is what the limiter allows
	// in the time they took.
	elapsed := time.Since(start).Seconds()
	allowed := 10 + int(math.Ceil(5*elapsed))
	if accepted > allowed || refused == 0 && allowed < 40 {
		t.Errorf("40 calls at key rate 5 in %.2f s: %d accepted (at most %d allowed), %d refused", elapsed, accepted, allowed, refused)
	}
}

// A key holds at most MCPSessionsPerKey sessions: the next initialize
// gets a 429 problem saying so; ending one (DELETE) makes room; another
// key is not affected.
func TestMCPSessionsPerKey(t *testing.T) {
	e, url := mcpServer(t, Options{KeyRate: -1, MCPSessionsPerKey: 3})
	key, _ := e.key("a")
	other, _ := e.key("b")
	var sessions []string
	for i := range 3 {
		status, session, body := mcpCall(t, url, key, "", mcpInitialize)
		if status != http.StatusOK || session == "" {
			t.Fatalf("session %d: %d %s", i, status, body)
		}
		sessions = append(sessions, session)
	}
	status, _, body := mcpCall(t, url, key, "", mcpInitialize)
	if status != http.StatusTooManyRequests || !strings.Contains(body, "3 MCP sessions") {
		t.Fatalf("a fourth session: %d %s; want 429 naming the cap", status, body)
	}
	if status, session, _ := mcpCall(t, url, other, "", mcpInitialize); status != http.StatusOK || session == "" {
		t.Fatalf("another key's session: %d", status)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, bytes.NewReader(nil))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set(mcpSessionHeader, sessions[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("DELETE session: %d", resp.StatusCode)
	}
	if status, session, body := mcpCall(t, url, key, "", mcpInitialize); status != http.StatusOK || session == "" {
		t.Fatalf("after ending one, a new session: %d %s", status, body)
	}
}

// Sessions unused past the idle timeout (closed by MCP's handler then)
// stop counting; a used one keeps counting.
func TestMCPSessionsIdleOut(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	m := newMCPSessions(2, 10*time.Minute)
	m.add("s1", "k", t0)
	m.add("s2", "k", t0)
	if _, ok := m.admit("k", t0.Add(time.Minute)); ok {
		t.Fatal("a third session admitted at the cap")
	}
	m.touch("s2", t0.Add(9*time.Minute))
	n, ok := m.admit("k", t0.Add(11*time.Minute))
	if !ok || n != 1 {
		t.Fatalf("after s1 idled out: %d sessions, admitted %v; want 1, true", n, ok)
	}
	// Another key's sessions nobody ended are forgotten too, once an
	// idle period has passed, though that key never reached its cap.
	m.add("o1", "other", t0)
	m.admit("k", t0.Add(30*time.Minute))
	if _, ok := m.byID["o1"]; ok || m.byKey["other"] != 0 {
		t.Errorf("an idle session of a key under its cap is still counted: %v", m.byKey)
	}
}
