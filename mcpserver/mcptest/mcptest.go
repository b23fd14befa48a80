// Package mcptest drives an amem MCP server with the SDK's own client, as an
// agent would: the same scenario checks the server on every transport it
// is served over (in memory, streamable HTTP, the amem mcp process).
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/wire"
)

// Tools are the names the server must offer.
var Tools = []string{"add_memory", "search_memory", "get_memory", "update_memory", "delete_memory", "memory_links", "memory_history"}

// Args are a tool call's arguments.
type Args = map[string]any

// Call calls a tool that must succeed and decodes its structured result.
func Call[Out any](t testing.TB, cs *mcp.ClientSession, tool string, args Args) Out {
	t.Helper()
	res := call(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error: %s", tool, args, text(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("%s: structured content: %v", tool, err)
	}
	var out Out
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: decoding %s: %v", tool, raw, err)
	}
	return out
}

// CallError calls a tool that must fail with a tool error (not a protocol
// error) and returns the error's text.
func CallError(t testing.TB, cs *mcp.ClientSession, tool string, args Args) string {
	t.Helper()
	res := call(t, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want a tool error; result %s", tool, args, text(res))
	}
	return text(res)
}

// bearer adds an API key to every request, as an MCP client configured
// with an Authorization header does.
type bearer struct {
	token string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// ConnectHTTP opens a session with the server at url (streamable HTTP)
// with the API key token; the session is closed when the test ends.
func ConnectHTTP(t testing.TB, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	transport := &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1,
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "amem-test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), transport, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func call(t testing.TB, cs *mcp.ClientSession, tool string, args Args) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Exercise calls every tool in namespace ns ("" for the server's default)
// and checks what each returns. The server's memory must enrich in the
// background, as amem mcp's does (add_memory without wait returns a pending
// note), with the offline curator or one that links related notes. It
// leaves three notes in ns: the bad calls it makes must change nothing.
func Exercise(t *testing.T, cs *mcp.ClientSession, ns string) {
	in := func(args Args) Args {
		if ns != "" {
			args = maps.Clone(args)
			args["namespace"] = ns
		}
		return args
	}
	checkToolList(t, cs)

	// Related memories, enriched before the call returns, so that the
	// curator links them.
	var notes []wire.Note
	for _, content := range []string{
		"Caroline went to an LGBTQ support group",
		"Caroline is researching adoption agencies",
		"Caroline attended a support group for adoption",
	} {
		n := Call[wire.Note](t, cs, "add_memory", in(Args{"content": content, "tags": []string{"caroline"}, "wait": true}))
		if len(n.ID) != 26 || n.Content != content || n.Enrichment.State != "done" || n.Version < 1 || !slices.Contains(n.Tags, "caroline") {
			t.Fatalf("add_memory with wait returned %+v", n)
		}
		notes = append(notes, n)
	}
	linked := Call[wire.Note](t, cs, "get_memory", in(Args{"id": notes[2].ID}))
	if linked.ID != notes[2].ID || linked.Content != notes[2].Content || len(linked.Links) == 0 {
		t.Fatalf("get_memory of a note with related notes: %+v; want it with its links", linked)
	}
	nbs := Call[wire.NeighborList](t, cs, "memory_links", in(Args{"id": linked.ID})).Links
	if len(nbs) != len(linked.Links) {
		t.Fatalf("memory_links: %d notes, get_memory shows %d links", len(nbs), len(linked.Links))
	}
	for _, nb := range nbs {
		l := nb.Link
		ends := []string{l.Source, l.Target}
		if nb.Note.Content == "" || l.Strength <= 0 || l.Strength > 1 ||
			!slices.Equal(slices.Sorted(slices.Values(ends)), slices.Sorted(slices.Values([]string{linked.ID, nb.Note.ID}))) {
			t.Fatalf("memory_links of %s: %+v", linked.ID, nb)
		}
	}
	checkSearch(t, cs, in, notes)

	// A memory about an earlier day, returned before enrichment.
	when := "2023-05-07T13:56:00Z"
	later := Call[wire.Note](t, cs, "add_memory", in(Args{"content": "Melanie painted a sunrise over the lake", "time": when}))
	if later.Enrichment.State != "pending" || later.EventTime.Format(time.RFC3339) != when {
		t.Fatalf("add_memory without wait returned %+v; want it pending, at %s", later, when)
	}
	checkUpdate(t, cs, in, later.ID)
	checkDelete(t, cs, in, later.ID)
	checkBadInput(t, cs, in)
}

func checkToolList(t *testing.T, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schema, _ := tool.InputSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		if len(tool.Description) < 100 || props["namespace"] == nil {
			t.Errorf("tool %s: a short description or no namespace argument: %q, schema %v", tool.Name, tool.Description, schema)
		}
		// One type each, nested schemas and outputs too: some clients
		// refuse ["null", "array"].
		out, _ := json.Marshal(tool.OutputSchema)
		var outSchema any
		_ = json.Unmarshal(out, &outSchema)
		for _, u := range append(TypeUnions("inputSchema", tool.InputSchema), TypeUnions("outputSchema", outSchema)...) {
			t.Errorf("tool %s: %s; want one type", tool.Name, u)
		}
		// A vector is thousands of tokens that mean nothing to a model.
		if tool.OutputSchema == nil || strings.Contains(string(out), `"embedding"`) {
			t.Errorf("tool %s: output schema %s; want one, without embeddings", tool.Name, out)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(Tools))) {
		t.Fatalf("tools/list: %v, want %v", names, Tools)
	}
}

// TypeUnions lists every place in the JSON schema v (as decoded into
// any) whose "type" is a list of types, by its path from root.
func TypeUnions(root string, v any) []string {
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if types, many := v["type"].([]any); many {
				out = append(out, fmt.Sprintf("%s has the types %v", path, types))
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(path+"."+k, v[k])
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		}
	}
	walk(root, v)
	return out
}

func checkSearch(t *testing.T, cs *mcp.ClientSession, in func(Args) Args, notes []wire.Note) {
	res := Call[wire.ResultList](t, cs, "search_memory", in(Args{"query": "LGBTQ support group"})).Results
	if len(res) == 0 || res[0].ID != notes[0].ID || res[0].Kind != "direct" || res[0].Content != notes[0].Content {
		t.Fatalf("search_memory: %+v; want %s first", res, notes[0].ID)
	}
	// One direct hit brings the notes linked to it.
	res = Call[wire.ResultList](t, cs, "search_memory", in(Args{"query": "support group adoption", "k": 1, "mode": "lexical"})).Results
	if len(res) < 2 || res[0].Kind != "direct" {
		t.Fatalf("search_memory with k=1: %+v; want a direct hit and its linked notes", res)
	}
	for _, r := range res[1:] {
		if r.Kind != "linked" || r.Via != res[0].ID {
			t.Fatalf("search_memory with k=1: %+v after the direct hit; want notes linked to it", r)
		}
	}
}

func checkUpdate(t *testing.T, cs *mcp.ClientSession, in func(Args) Args, id string) {
	content := "Melanie painted a sunset over the lake"
	n := Call[wire.Note](t, cs, "update_memory", in(Args{"id": id, "content": content, "tags": []string{"art"}, "reason": "it was a sunset"}))
	if n.ID != id || n.Content != content || !slices.Equal(n.Tags, []string{"art"}) || n.Version < 2 {
		t.Fatalf("update_memory returned %+v", n)
	}
	vs := Call[wire.VersionList](t, cs, "memory_history", in(Args{"id": id})).Versions
	if len(vs) < 2 || vs[0].Version != 1 || vs[0].Actor != "user" {
		t.Fatalf("memory_history after one update: %+v", vs)
	}
	edit := slices.IndexFunc(vs, func(v wire.Version) bool {
		return v.Actor == "user" && v.Reason == "it was a sunset" &&
			slices.ContainsFunc(v.Changes, func(c wire.FieldChange) bool { return c.Field == "content" })
	})
	if edit < 0 {
		t.Fatalf("memory_history: %+v; no version for the update", vs)
	}
}

func checkDelete(t *testing.T, cs *mcp.ClientSession, in func(Args) Args, id string) {
	if got := Call[wire.Deleted](t, cs, "delete_memory", in(Args{"id": id})); got.Deleted != id {
		t.Fatalf("delete_memory returned %+v", got)
	}
	for _, tool := range []string{"get_memory", "memory_links", "memory_history", "delete_memory"} {
		if msg := CallError(t, cs, tool, in(Args{"id": id})); !strings.Contains(msg, "not found") {
			t.Fatalf("%s of a deleted note: %q, want not found", tool, msg)
		}
	}
	if msg := CallError(t, cs, "update_memory", in(Args{"id": id, "content": "x"})); !strings.Contains(msg, "not found") {
		t.Fatalf("update_memory of a deleted note: %q, want not found", msg)
	}
}

func checkBadInput(t *testing.T, cs *mcp.ClientSession, in func(Args) Args) {
	for _, c := range []struct {
		tool string
		args Args
		want string
	}{
		{"add_memory", in(Args{"content": "  "}), "content is empty"},
		{"add_memory", in(Args{"content": "x", "time": "yesterday"}), "RFC 3339"},
		{"add_memory", in(Args{}), "content"},
		{"search_memory", in(Args{"query": "x", "mode": "fuzzy"}), "mode"},
		{"search_memory", in(Args{"query": "x", "k": 0}), "k"},
		{"search_memory", in(Args{"query": "x", "from": "yesterday"}), `from: invalid input: time "yesterday"`},
		{"search_memory", in(Args{"query": "x", "from": "2024-05-02", "to": "2024-05-01"}), "time range is empty"},
		{"search_memory", in(Args{"query": "x", "tags": strings.Fields(strings.Repeat("t ", amem.MaxFilterTerms+1))}), "tags and metadata pairs; the limit is"},
		{"search_memory", in(Args{"query": "x", "tags": []string{" "}}), "filter tags: empty entry"},
		{"get_memory", in(Args{"id": "nope"}), "not a note ID"},
		{"update_memory", in(Args{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}), "nothing to change"},
		{"add_memory", in(Args{"content": "x", "time": "0001-01-01T00:00:00Z"}), "zero time"},
		{"add_memory", in(Args{"content": "x", "time": "0001-01-01"}), "zero time"},
		{"add_memory", in(Args{"content": "x", "time": "2300-01-01"}), "1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z"},
		{"update_memory", in(Args{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "time": "0001-01-01T00:00:00Z"}), "zero time"},
		{"add_memory", Args{"content": "x", "namespace": "a/b"}, "namespace"},
	} {
		if msg := CallError(t, cs, c.tool, c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%s(%v): %q, want it to mention %q", c.tool, c.args, msg, c.want)
		}
	}
}
