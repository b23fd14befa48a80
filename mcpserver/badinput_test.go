package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/memory"
)

// rawCaller sends a tools/call whose arguments are raw JSON text, as a
// client that is not the Go SDK could, and returns the tool result.
type rawCaller func(t *testing.T, tool, args string) toolResult

type toolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
}

func (r toolResult) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

func toolCall(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// versions counts a namespace's notes and version rows.
func versions(t *testing.T, mem *memory.Memory, ns string) (notes, vs int) {
	t.Helper()
	list, err := mem.List(context.Background(), ns, amem.ListQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range list {
		h, err := mem.History(context.Background(), ns, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		vs += len(h)
	}
	return len(list), vs
}

// checkRewrittenTextRefused makes calls whose arguments encoding/json would
// decode with U+FFFD in place of what was sent: each must be a tool error
// that says so, and the memory must be as it was.
func checkRewrittenTextRefused(t *testing.T, call rawCaller, mem *memory.Memory, ns string) {
	ctx := context.Background()
	kept, err := mem.Add(ctx, amem.AddRequest{Namespace: ns, Content: "kept as it was"})
	if err != nil {
		t.Fatal(err)
	}
	notes, vs := versions(t, mem, ns)
	for _, c := range []struct{ name, tool, args, want string }{
		{"invalid UTF-8", "add_memory", "{\"content\": \"caf\xe9\"}", "the tool's input is not valid UTF-8 at byte"},
		{"invalid UTF-8 in a tag", "add_memory", "{\"content\": \"x\", \"tags\": [\"\xff\"]}", "not valid UTF-8"},
		{"lone surrogate", "add_memory", `{"content": "half \ud800 a pair"}`, `has \ud800 at byte`},
		{"lone low surrogate", "add_memory", `{"content": "\udc00 alone"}`, `\udc00`},
		{"update, lone surrogate", "update_memory", `{"id": "` + kept.ID + `", "content": "\ud83d"}`, `\ud83d`},
		{"update, invalid UTF-8", "update_memory", "{\"id\": \"" + kept.ID + "\", \"context\": \"\xc3(\"}", "not valid UTF-8"},
		{"zero time", "add_memory", `{"content": "x", "time": "0001-01-01T00:00:00Z"}`, "zero time"},
		{"update, zero time", "update_memory", `{"id": "` + kept.ID + `", "time": "0001-01-01"}`, "zero time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if ns != "" {
				c.args = strings.Replace(c.args, "{", `{"namespace": "`+ns+`", `, 1)
			}
			res := call(t, c.tool, c.args)
			if !res.IsError || !strings.Contains(res.text(), c.want) {
				t.Fatalf("%s(%q): %+v; want a tool error saying %q", c.tool, c.args, res, c.want)
			}
			for _, goish := range []string{".go", "main.", "amem.", "mcpserver.", "UnmarshalJSON", "json: ", "jsonin"} {
				if strings.Contains(res.text(), goish) {
					t.Errorf("the error shows Go internals (%q): %q", goish, res.text())
				}
			}
			if n, v := versions(t, mem, ns); n != notes || v != vs {
				t.Fatalf("the refused call changed the memory: %d notes, %d versions; was %d, %d", n, v, notes, vs)
			}
		})
	}
	got, err := mem.Get(ctx, ns, kept.ID)
	if err != nil || got.Content != kept.Content || got.Version != kept.Version || !got.EventTime.Equal(kept.EventTime) {
		t.Fatalf("the note changed: %+v %v", got, err)
	}
}

func TestMCPStdioRefusesTextItWouldRewrite(t *testing.T) {
	mem, _ := openMemory(t, slog.New(slog.DiscardHandler))
	srv := mcpserver.New(mem, mcpserver.Options{DefaultNamespace: "a", Logger: slog.New(slog.DiscardHandler)})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW})
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	out := bufio.NewReader(outR)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// read returns the answer to request id, skipping notifications.
	read := func(id int) json.RawMessage {
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading the server: %v", err)
			}
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				t.Fatalf("the server wrote %q: %v", line, err)
			}
			if msg.ID != nil && *msg.ID == id {
				if msg.Error != nil {
					t.Fatalf("request %d: protocol error %s", id, msg.Error)
				}
				return msg.Result
			}
		}
	}
	send(initialize)
	read(1)
	send(initialized)
	id := 1
	call := func(t *testing.T, tool, args string) toolResult {
		id++
		send(toolCall(id, tool, args))
		var res toolResult
		if err := json.Unmarshal(read(id), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	checkRewrittenTextRefused(t, call, mem, "a")
}

func TestMCPHTTPRefusesTextItWouldRewrite(t *testing.T) {
	f := serveHTTP(t)
	_, token := f.key(t, false, "a")
	session := ""
	send := func(body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := send(initialize)
	if session = resp.Header.Get("Mcp-Session-Id"); resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := send(initialized); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	id := 1
	call := func(t *testing.T, tool, args string) toolResult {
		id++
		resp, body := send(toolCall(id, tool, args))
		if resp.StatusCode != 200 {
			t.Fatalf("tools/call: %d %s", resp.StatusCode, body)
		}
		// One event: "data: {the JSON-RPC answer}".
		var msg struct {
			Result toolResult `json:"result"`
		}
		for line := range strings.Lines(body) {
			if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
				if err := json.Unmarshal([]byte(data), &msg); err != nil {
					t.Fatal(err)
				}
				return msg.Result
			}
		}
		t.Fatalf("tools/call: no answer in %q", body)
		return toolResult{}
	}
	checkRewrittenTextRefused(t, call, f.mem, "a")
}
