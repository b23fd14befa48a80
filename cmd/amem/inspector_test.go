package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem/internal/npmtest"
	"github.com/amem-dev/amem/mcpserver/mcptest"
)

// inspectorDir holds the MCP inspector, pinned by its package-lock.json.
const inspectorDir = "testdata/inspector"

// inspector runs the MCP inspector's CLI (npx mcp-inspector --cli) on
// the server target names (a command, or a URL and its options) and
// returns its JSON answer and what it wrote on stderr. It installs the pinned inspector with npm ci
// first if needed: without node and npm the test fails, as CI must have
// them.
func inspector(t *testing.T, target []string, args ...string) (map[string]any, string) {
	t.Helper()
	installInspector(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cli := append(append([]string{"--prefix", inspectorDir, "mcp-inspector", "--cli"}, target...), args...)
	cmd := exec.CommandContext(ctx, "npx", cli...)
	// The inspector keeps a catalog of servers; not in the user's home.
	cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "mcp.json"), "NO_UPDATE_NOTIFIER=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("npx %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(cli, " "), err, stdout.String(), stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("the inspector's answer is not JSON: %v\n%s", err, stdout.String())
	}
	return out, stderr.String()
}

// installInspector runs npm ci in inspectorDir unless the pinned
// inspector is there already.
func installInspector(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: the MCP inspector test needs node and npm (CI installs them)", tool)
		}
	}
	npmtest.Bin(t, inspectorDir, "mcp-inspector")
}

// TestMCPInspector checks amem's MCP tools with the reference client's
// CLI, over stdio (amem mcp) and streamable HTTP (amem serve): tools/list
// --strict must find no tool schema unportable, every input schema is
// checked for type lists, and add and search take list
// arguments (tags) given and absent.
func TestMCPInspector(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "mcp.db")
		// The test binary stands in for amem (see TestMain); the
		// inspector passes the server only the environment -e gives it.
		inspectorScenario(t, []string{os.Args[0], "mcp", "--db", db, "--namespace", "me", "--embedder", "lexical", "--curator", "offline",
			"-e", "AMEM_TEST_RUN_MAIN=1", "-e", "HOME=" + t.TempDir()})
	})
	t.Run("http", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "mcp.db")
		key := createKey(t, db, "--namespace", "me")
		s := startServe(t, nil, db, "--namespace", "me", "--curator", "offline")
		inspectorScenario(t, []string{s.url + "/mcp", "--transport", "http", "--header", "Authorization: Bearer " + key})
	})
}

// inspectorScenario lists the tools and calls add and search through the
// inspector on target, whose default namespace must be "me".
func inspectorScenario(t *testing.T, target []string) {
	list, stderr := inspector(t, target, "--method", "tools/list", "--strict")
	// --strict fails only on errors; a warning, such as a list of types
	// in an output schema, is a tool some clients refuse too.
	if strings.Contains(stderr, "Warning: tool") || strings.Contains(stderr, "Error: tool") {
		t.Errorf("the inspector finds the tools' schemas unportable:\n%s", stderr)
	}
	tools, _ := list["tools"].([]any)
	var names []string
	for _, tool := range tools {
		tool, _ := tool.(map[string]any)
		name, _ := tool["name"].(string)
		names = append(names, name)
		for _, u := range mcptest.TypeUnions("inputSchema", tool["inputSchema"]) {
			t.Errorf("tool %s: %s; want one type", name, u)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(mcptest.Tools))) {
		t.Fatalf("tools/list through the inspector: %v, want %v", names, mcptest.Tools)
	}

	call := func(tool string, args ...string) map[string]any {
		t.Helper()
		out, _ := inspector(t, target, append([]string{"--method", "tools/call", "--tool-name", tool, "--tool-arg"}, args...)...)
		if isErr, _ := out["isError"].(bool); isErr {
			t.Fatalf("%s %q: a tool error: %v", tool, args, out["content"])
		}
		sc, _ := out["structuredContent"].(map[string]any)
		if sc == nil {
			t.Fatalf("%s %q: no structured content: %v", tool, args, out)
		}
		return sc
	}
	tagged := call("add_memory", "content=Caroline adopted a dog named Rex", `tags=["pets","family"]`, "time=2023-05-08")
	if tags, _ := tagged["tags"].([]any); !slices.Contains(tags, any("pets")) || !slices.Contains(tags, any("family")) {
		t.Fatalf("add_memory with tags: %v", tagged)
	}
	plain := call("add_memory", "content=Melanie painted a sunrise over the lake")
	if plain["namespace"] != "me" {
		t.Fatalf("add_memory without tags: %v", plain)
	}

	contents := func(res map[string]any) []string {
		var out []string
		rs, _ := res["results"].([]any)
		for _, r := range rs {
			r, _ := r.(map[string]any)
			c, _ := r["content"].(string)
			out = append(out, c)
		}
		return out
	}
	if got := contents(call("search_memory", "query=dog", `tags=["pets"]`, "k=5")); !slices.Equal(got, []string{"Caroline adopted a dog named Rex"}) {
		t.Fatalf("search_memory with tags: %q", got)
	}
	if got := contents(call("search_memory", "query=sunrise lake")); !slices.Contains(got, "Melanie painted a sunrise over the lake") {
		t.Fatalf("search_memory without tags: %q", got)
	}
}
