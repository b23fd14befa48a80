package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/wire"
)

// goish are signs of Go internals in a message meant for a person
// (".go:" a source position: a host name may hold ".go").
var goish = []string{".go:", "main.", "server.", "amem.", "UnmarshalJSON", "json: ", "noteInput", "jsonin"}

// checkReadable fails the test if an error body is not a problem with a
// detail in the client's words. env.do calls it on every error answer.
func checkReadable(t testing.TB, raw []byte) {
	t.Helper()
	var p Problem
	if err := json.Unmarshal(raw, &p); err != nil || p.Status < 400 || p.Title == "" || p.Detail == "" {
		t.Errorf("error body %q is not a problem with a detail", raw)
		return
	}
	for _, g := range goish {
		if strings.Contains(p.Detail, g) {
			t.Errorf("problem detail %q shows Go internals (%q)", p.Detail, g)
		}
	}
}

// counts counts every note and version row of the store.
func (e *env) counts() (notes, versions int) {
	e.t.Helper()
	err := e.store.View(context.Background(), func(tx amem.Tx) error {
		infos, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, info := range infos {
			page, err := tx.ListNotes(info.Name, amem.ListQuery{Limit: 10000})
			if err != nil {
				return err
			}
			for _, n := range page {
				vs, err := tx.Versions(info.Name, n.ID)
				if err != nil {
					return err
				}
				notes, versions = notes+1, versions+len(vs)
			}
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return notes, versions
}

// TestBadTextAndTimesChangeNothing: text that decoding would rewrite as
// U+FFFD and times a note can't hold are 400 on every write route, and
// the store is as it was.
func TestBadTextAndTimesChangeNothing(t *testing.T) {
	e := newEnv(t, Options{})
	key, _ := e.key("ns")
	at := "2023-05-08T13:56:00Z"
	var kept wire.Note
	e.must(201, "POST", "/v1/namespaces/ns/notes", key, map[string]any{"content": "kept", "time": at}, &kept)
	eventually(t, func() bool {
		var n wire.Note
		e.must(200, "GET", "/v1/namespaces/ns/notes/"+kept.ID, key, nil, &n)
		return n.Enrichment.State == string(amem.EnrichDone)
	})
	notes, versions := e.counts()
	const create, batch = "/v1/namespaces/ns/notes", "/v1/namespaces/ns/notes/batch"
	patch := create + "/" + kept.ID
	const rng = "1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z"
	for _, c := range []struct {
		name, method, path, body, detail string
	}{
		{"invalid UTF-8", "POST", create, "{\"content\": \"caf\xe9\"}", "body is not valid UTF-8 at byte 17"},
		{"invalid UTF-8 in a tag", "POST", create, "{\"content\": \"x\", \"tags\": [\"\xff\"]}", "not valid UTF-8"},
		{"lone surrogate", "POST", create, `{"content": "half \ud800 a pair"}`, `\ud800 at byte 19, half of a UTF-16 surrogate pair`},
		{"lone low surrogate", "POST", create, `{"content": "\udc00"}`, `\udc00`},
		{"lone surrogate in a key", "POST", create, `{"content": "x", "metadata": {"\ud800": "v"}}`, `\ud800`},
		{"zero time", "POST", create, `{"content": "x", "time": "0001-01-01T00:00:00Z"}`, "time 0001-01-01T00:00:00Z is the zero time"},
		{"time too early", "POST", create, `{"content": "x", "time": "1600-01-01T00:00:00Z"}`, rng},
		{"time too late", "POST", create, `{"content": "x", "time": "2262-04-12T00:00:00Z"}`, rng},
		{"time not a string", "POST", create, `{"content": "x", "time": 1714557600}`, `field "time": must be an RFC 3339 time such as 2024-05-01T10:00:00Z, not a number`},
		{"time in words", "POST", create, `{"content": "x", "time": "yesterday"}`, `field "time": must be an RFC 3339 time such as 2024-05-01T10:00:00Z, not "yesterday"`},
		{"body a list", "POST", create, `[{"content": "x"}]`, "body must be a JSON object, not a list"},
		{"batch invalid UTF-8", "POST", batch, "{\"notes\": [{\"content\": \"ok\"}, {\"content\": \"\xc3\"}]}", "not valid UTF-8"},
		{"batch lone surrogate", "POST", batch, `{"notes": [{"content": "ok"}, {"content": "\ud83d"}]}`, `\ud83d`},
		{"batch zero time", "POST", batch, `{"notes": [{"content": "ok"}, {"content": "x", "time": "0001-01-01T00:00:00Z"}]}`, "note 1: invalid input: time 0001-01-01T00:00:00Z is the zero time"},
		{"batch time out of range", "POST", batch, `{"notes": [{"content": "x", "time": "9999-01-01T00:00:00Z"}]}`, "note 0: invalid input: time 9999-01-01T00:00:00Z is outside"},
		{"batch wrong time", "POST", batch, `{"notes": [{"content": "x", "time": 5}]}`, `field "notes.time": must be an RFC 3339 time`},
		{"batch not a list", "POST", batch, `{"notes": {"content": "x"}}`, `field "notes": must be a list, not an object`},
		{"patch invalid UTF-8", "PATCH", patch, "{\"content\": \"\xff\"}", "not valid UTF-8"},
		{"patch lone surrogate", "PATCH", patch, `{"context": "\ud800"}`, `\ud800`},
		{"patch zero time", "PATCH", patch, `{"time": "0001-01-01T00:00:00Z"}`, "time 0001-01-01T00:00:00Z is the zero time"},
		{"patch time out of range", "PATCH", patch, `{"time": "1000-01-01T00:00:00Z"}`, rng},
		{"patch null time only", "PATCH", patch, `{"time": null}`, "nothing to change"},
		{"restore not an object", "POST", patch + "/restore", `3`, "body must be a JSON object, not a number"},
		// A zero bound would be no bound: a filter matching nothing would
		// match everything.
		{"zero upper bound", "GET", create + "?to=0001-01-01", ``, "to: invalid input: time 0001-01-01 is the zero time"},
		{"zero lower bound in search", "GET", "/v1/namespaces/ns/search?q=kept&from=0001-01-01T00:00:00Z", ``, "from: invalid input: time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, raw := e.do(c.method, c.path, key, []byte(c.body), nil)
			var p Problem
			if got != 400 || json.Unmarshal(raw, &p) != nil || !strings.Contains(p.Detail, c.detail) {
				t.Fatalf("status %d, %s; want 400 with a detail containing %q", got, raw, c.detail)
			}
			if n, v := e.counts(); n != notes || v != versions {
				t.Fatalf("the refused request changed the store: %d notes, %d versions; was %d, %d", n, v, notes, versions)
			}
		})
	}
	var got wire.Note
	e.must(200, "GET", patch, key, nil, &got)
	if got.Content != "kept" || got.Version != kept.Version+1 || got.EventTime.Format(time.RFC3339) != at {
		t.Fatalf("the note changed: %+v", got)
	}

	// A null time means not given: now on create, unchanged on PATCH.
	var n wire.Note
	e.must(201, "POST", create, key, `{"content": "no time", "time": null}`, &n)
	if time.Since(n.EventTime) > time.Minute {
		t.Fatalf("a null time on create gave %v, want now", n.EventTime)
	}
	e.must(200, "PATCH", patch, key, `{"content": "kept, edited", "time": null}`, &n)
	if n.EventTime.Format(time.RFC3339) != at {
		t.Fatalf("a null time on PATCH gave %v, want %s unchanged", n.EventTime, at)
	}
}

// mcpEnv is newEnv's server with MCP mounted at /mcp, as amem serve runs
// it, on a listener wrapped by Listener.
func mcpEnv(t *testing.T) (*env, string) {
	e := newEnv(t, Options{})
	quiet := slog.New(slog.DiscardHandler)
	api := New(e.mem, Options{Keys: e.store, Logger: quiet, MaxBodyBytes: 64 << 10,
		MCP: mcpserver.HTTPHandler(e.mem, e.store, mcpserver.Options{Logger: quiet})})
	srv := httptest.NewUnstartedServer(api)
	srv.Listener = Listener(srv.Listener, ConnLimits{})
	srv.Start()
	t.Cleanup(srv.Close)
	return &env{t: t, url: srv.URL, mem: e.mem, store: e.store, api: api}, srv.Listener.Addr().String()
}

// TestEveryErrorIsAProblem: the answers that ServeMux, the MCP SDK and
// net/http itself would give in plain text are problem+json (env.do
// checks the type and the detail of each).
func TestEveryErrorIsAProblem(t *testing.T) {
	e, addr := mcpEnv(t)
	key, _ := e.key("ns")
	notes, versions := e.counts()
	for _, c := range []struct {
		name, method, path, body string
		auth                     bool
		want                     int
		detail                   string
	}{
		{"dot dot", "POST", "/v1/namespaces/other/../ns/notes", `{"content": "x"}`, true, 404, "did you mean /v1/namespaces/ns/notes?"},
		{"dot", "GET", "/v1/./namespaces", "", false, 404, "no such route"},
		{"unknown route", "GET", "/v1/nowhere", "", true, 404, "no such route"},
		{"wrong method", "DELETE", "/healthz", "", false, 405, "use GET"},
		{"mcp without a key", "POST", "/mcp", `{}`, false, 401, "a valid API key is required"},
		{"mcp wrong method", "PUT", "/mcp", `{}`, true, 405, "PUT is not allowed on /mcp; use GET, POST, DELETE"},
		{"mcp no session", "GET", "/mcp", "", true, 400, "GET requires an Mcp-Session-Id header"},
		{"mcp body over the limit", "POST", "/mcp", `{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "` + strings.Repeat("a", 11<<20) + `"}}`, true, 413, "exceeds"},
		{"mcp not JSON", "POST", "/mcp", `not json`, true, 400, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := ""
			if c.auth {
				k = key
			}
			got, raw := e.rawDo(c.method, c.path, k, c.body, map[string]string{"Accept": "application/json, text/event-stream"})
			var p Problem
			if got != c.want || json.Unmarshal(raw, &p) != nil || !strings.Contains(strings.ToLower(p.Detail), strings.ToLower(c.detail)) {
				t.Fatalf("status %d, %s; want %d with a detail containing %q", got, raw, c.want, c.detail)
			}
		})
	}
	t.Run("double slash", func(t *testing.T) {
		// Sent raw: a client would take //v1 for a host name.
		status, ct, body := rawHTTP(t, addr, "GET //v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+key+"\r\n\r\n")
		checkRawProblem(t, status, ct, body, 404, "did you mean /v1/namespaces?")
	})
	t.Run("headers too large", func(t *testing.T) {
		status, ct, body := rawHTTP(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 2<<20)+"\r\n\r\n")
		checkRawProblem(t, status, ct, body, 431, "headers are larger than the server accepts")
	})
	t.Run("malformed request", func(t *testing.T) {
		status, ct, body := rawHTTP(t, addr, "GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n")
		checkRawProblem(t, status, ct, body, 400, "malformed Host header")
	})
	t.Run("no host", func(t *testing.T) {
		status, ct, body := rawHTTP(t, addr, "GET /healthz HTTP/1.1\r\n\r\n")
		checkRawProblem(t, status, ct, body, 400, "missing required Host header")
	})
	// The wrapped listener leaves ordinary answers alone.
	e.must(200, "GET", "/healthz", "", nil, nil)
	if n, v := e.counts(); n != notes || v != versions {
		t.Fatalf("refused requests changed the store: %d notes, %d versions; was %d, %d", n, v, notes, versions)
	}
}

// rawDo is do with a raw path (kept as written, so that it reaches the
// server unclean) and extra headers.
func (e *env) rawDo(method, path, key, body string, headers map[string]string) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+"/", rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.URL.Opaque = path // sent verbatim: no cleaning by the client
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 400 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			e.t.Errorf("%s %s: %d with Content-Type %q, want application/problem+json: %s", method, path, resp.StatusCode, ct, raw)
		}
		checkReadable(e.t, raw)
	}
	return resp.StatusCode, raw
}

// rawHTTP writes a request on a new connection and reads the answer.
func rawHTTP(t *testing.T, addr, request string) (status int, contentType string, body []byte) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	go func() { _, _ = io.WriteString(c, request) }() // the server may answer before reading it all
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

func checkRawProblem(t *testing.T, status int, ct string, body []byte, want int, detail string) {
	t.Helper()
	var p Problem
	if status != want || ct != "application/problem+json" || json.Unmarshal(body, &p) != nil || p.Status != want || !strings.Contains(p.Detail, detail) {
		t.Fatalf("%d %s %s; want %d problem+json with a detail containing %q", status, ct, body, want, detail)
	}
	checkReadable(t, body)
}

// TestProblemResponseLeavesOtherWritesAlone: only net/http's own error
// answers are rewritten, never a handler's bytes that look alike.
func TestProblemResponseLeavesOtherWritesAlone(t *testing.T) {
	for _, b := range []string{
		"HTTP/1.1 200 OK" + plainErrorHeaders + "fine",
		"HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nDate: x\r\n\r\nnot found",
		"HTTP/1.1 400 Bad Request\r\nDate: x" + plainErrorHeaders + "x",
		"some body text HTTP/1.1 400 Bad Request" + plainErrorHeaders,
	} {
		if out, ok := problemResponse([]byte(b)); ok {
			t.Errorf("problemResponse(%q) rewrote it to %q", b, out)
		}
	}
	out, ok := problemResponse([]byte("HTTP/1.1 501 Not Implemented" + plainErrorHeaders + "Unsupported transfer encoding"))
	if !ok || !strings.Contains(string(out), `"detail":"Unsupported transfer encoding"`) {
		t.Fatalf("501: %q %v", out, ok)
	}
}
