package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/fakellm"
	"github.com/amem-dev/amem/mcpserver/mcptest"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/wire"
)

// served is a running `amem serve` process.
type served struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer // the log after the start line
	exited chan error
}

var servingLine = regexp.MustCompile(`msg=serving addr=(http://\S+)`)

// startServe starts `amem serve` on a free port and waits for its start
// line.
func startServe(t *testing.T, env []string, db string, flags ...string) *served {
	t.Helper()
	cmd := amemCommand(t, env, append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, flags...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
				continue
			}
			s.stderr.WriteString(sc.Text() + "\n") // read after exit only
		}
		s.exited <- cmd.Wait()
	}()
	select {
	case s.url = <-urls:
	case err := <-s.exited:
		t.Fatalf("amem serve exited at start: %v\n%s", err, s.stderr)
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("amem serve did not start in 30 s")
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return s
}

// call sends a request with the key and decodes a JSON answer into out.
func (s *served) call(t *testing.T, method, path, key, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return resp.StatusCode
}

func createKey(t *testing.T, db string, args ...string) string {
	t.Helper()
	out, err := amemCommand(t, nil, append([]string{"keys", "create", "--db", db}, args...)...).Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	key := strings.TrimSuffix(string(out), "\n")
	if !regexp.MustCompile(`^amem_[A-Za-z0-9_-]{43}$`).MatchString(key) {
		t.Fatalf("keys create printed %q, want only a key", out)
	}
	return key
}

// TestServeAsDocumented runs the commands docs/HTTP.md gives, in a real
// process, and stops it with SIGTERM.
func TestServeAsDocumented(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	key := createKey(t, db, "--namespace", "team")
	srv := startServe(t, nil, db)

	var note wire.Note
	if got := srv.call(t, "POST", "/v1/namespaces/team/notes", key,
		`{"content": "The deploy freeze starts on Friday", "time": "2026-11-27T09:00:00Z"}`, &note); got != 201 || len(note.ID) != 26 {
		t.Fatalf("create: %d %+v", got, note)
	}
	var got wire.Note
	if code := srv.call(t, "GET", "/v1/namespaces/team/notes/"+note.ID, key, "", &got); code != 200 || got.Content != note.Content {
		t.Fatalf("get: %d %+v", code, got)
	}
	var res struct {
		Results []struct {
			ID, Content, Kind string
			Score             float64
		} `json:"results"`
	}
	if code := srv.call(t, "GET", "/v1/namespaces/team/search?q=deploy+freeze&k=5", key, "", &res); code != 200 ||
		len(res.Results) != 1 || res.Results[0].ID != note.ID || res.Results[0].Kind != "direct" || res.Results[0].Score <= 0 {
		t.Fatalf("search: %d %+v", code, res)
	}
	if code := srv.call(t, "GET", "/v1/namespaces/other/search?q=deploy", key, "", nil); code != 403 {
		t.Fatalf("other namespace: %d", code)
	}
	if code := srv.call(t, "DELETE", "/v1/namespaces/team/notes/"+note.ID, key, "", nil); code != 204 {
		t.Fatalf("delete: %d", code)
	}
	var doc map[string]any
	if code := srv.call(t, "GET", "/openapi.json", "", "", &doc); code != 200 || doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi: %d", code)
	}
	if code := srv.call(t, "GET", "/healthz", "", "", nil); code != 200 {
		t.Fatalf("healthz: %d", code)
	}
	// The web UI comes with the binary: go build alone serves it.
	resp, err := http.Get(srv.url + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") ||
		!strings.Contains(string(page), "js/app.js") {
		t.Fatalf("GET /ui/: %d %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}

	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-srv.exited:
		if err != nil {
			t.Fatalf("amem serve after SIGTERM: %v\n%s", err, srv.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("amem serve did not stop in 30 s after SIGTERM")
	}
	if log := srv.stderr.String(); strings.Contains(log, key) || !strings.Contains(log, "msg=stopped") {
		t.Fatalf("log holds the key or lacks the stop:\n%s", log)
	}
}

// slowLLM is the fake OpenAI-compatible server, slowed so that notes are
// still pending when the process is killed.
func slowLLM(delay time.Duration) *httptest.Server {
	model := &fakellm.Server{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		model.ServeHTTP(w, r)
	}))
}

// TestServeKilledWithPendingNotes kills the server (SIGKILL) while notes
// wait for enrichment: after a restart every acknowledged note is there
// and gets enriched.
func TestServeKilledWithPendingNotes(t *testing.T) {
	llm := slowLLM(150 * time.Millisecond)
	defer llm.Close()
	env := []string{"AMEM_LLM=openai:" + fakellm.Model, "OPENAI_BASE_URL=" + llm.URL + "/v1", "OPENAI_API_KEY=sk-test"}
	db := filepath.Join(t.TempDir(), "k.db")
	key := createKey(t, db, "--admin")

	srv := startServe(t, env, db)
	const n = 20
	notes := make([]string, n)
	for i := range notes {
		notes[i] = fmt.Sprintf(`{"content": "crash test note %d about the garden"}`, i)
	}
	var created struct{ Notes []wire.Note }
	if code := srv.call(t, "POST", "/v1/namespaces/crash/notes/batch", key,
		`{"notes": [`+strings.Join(notes, ",")+`]}`, &created); code != 201 || len(created.Notes) != n {
		t.Fatalf("batch: %d, %d notes", code, len(created.Notes))
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.exited

	pending := countStates(t, db, n)
	if pending[amem.EnrichPending] == 0 {
		t.Fatalf("no note was pending at the kill (%v): the test shows nothing", pending)
	}
	t.Logf("after SIGKILL: %v", pending)

	srv = startServe(t, env, db)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var st wire.Stats
		if code := srv.call(t, "GET", "/v1/namespaces/crash/stats", key, "", &st); code != 200 {
			t.Fatalf("stats: %d", code)
		}
		if st.Notes != n {
			t.Fatalf("%d notes after the restart, want %d", st.Notes, n)
		}
		if st.ByState[string(amem.EnrichDone)] == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not all enriched after restart: %v", st.ByState)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range created.Notes {
		var got wire.Note
		if code := srv.call(t, "GET", "/v1/namespaces/crash/notes/"+c.ID, key, "", &got); code != 200 || len(got.Keywords) == 0 {
			t.Fatalf("note %s after restart: %d %+v", c.ID, code, got)
		}
	}
}

// countStates reads the database directly: notes by enrichment state,
// after checking that all want notes are there.
func countStates(t *testing.T, db string, want int) map[amem.EnrichState]int {
	t.Helper()
	st, err := sqlite.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var counts amem.NamespaceStats
	err = st.View(context.Background(), func(tx amem.Tx) error {
		counts, err = tx.Stats("crash")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if counts.Notes != want {
		t.Fatalf("%d notes after SIGKILL, want %d", counts.Notes, want)
	}
	return counts.ByState
}

// TestServeMCPOverHTTP calls every MCP tool of a real amem serve at /mcp
// with a key, then stops it with SIGTERM while the session (and its event
// stream) is open: it must still drain promptly and exit 0.
func TestServeMCPOverHTTP(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	key := createKey(t, db, "--namespace", "agent")
	srv := startServe(t, nil, db)
	if _, err := mcptest.ConnectHTTP(t, srv.url+"/mcp", ""); err == nil {
		t.Fatal("an MCP session opened without a key")
	}
	cs, err := mcptest.ConnectHTTP(t, srv.url+"/mcp", key)
	if err != nil {
		t.Fatal(err)
	}
	mcptest.Exercise(t, cs, "agent")

	start := time.Now()
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-srv.exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("amem serve with an open MCP session did not stop in 20 s")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("shutdown took %s with an MCP session open", d)
	}
}

// TestServeAnswersOversizedHeadersWithAProblem: even the errors net/http
// answers before any handler runs are problem+json in amem serve.
func TestServeAnswersOversizedHeadersWithAProblem(t *testing.T) {
	srv := startServe(t, nil, filepath.Join(t.TempDir(), "h.db"))
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(srv.url, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	go func() { // the server answers before it has read it all
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 2<<20)+"\r\n\r\n")
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct {
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 431 || resp.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(raw, &p) != nil || p.Status != 431 || p.Detail == "" {
		t.Fatalf("%d %s %s; want 431 as problem+json", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
}
