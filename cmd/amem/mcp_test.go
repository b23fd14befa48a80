package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem/mcpserver/mcptest"
	"github.com/amem-dev/amem/wire"
)

// mcpProcess is a real `amem mcp` process with the SDK's client connected
// to its stdin and stdout.
type mcpProcess struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *bytes.Buffer // read only after the process exited
}

// stdinGrace is how long the client waits, after closing stdin, before it
// signals the process: long enough that an exit after it is a failure to
// exit on end of input.
const stdinGrace = time.Minute

func startMCP(t *testing.T, args ...string) *mcpProcess {
	t.Helper()
	p := &mcpProcess{cmd: amemCommand(t, nil, append([]string{"mcp", "--curator", "offline"}, args...)...), stderr: &bytes.Buffer{}}
	p.cmd.Stderr = p.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "amem-mcp-test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: p.cmd, TerminateDuration: stdinGrace}, nil)
	if err != nil {
		t.Fatalf("connecting to amem mcp: %v", err)
	}
	p.cs = cs
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

// close ends the session as a client does, by closing stdin, and checks
// that the process exits 0 on its own.
func (p *mcpProcess) close(t *testing.T) {
	t.Helper()
	start := time.Now()
	_ = p.cs.Close() // the exit status is checked below, whichever way the connection ended
	if p.cmd.ProcessState == nil || !p.cmd.ProcessState.Success() || time.Since(start) >= stdinGrace {
		t.Fatalf("amem mcp: %v after %s; want exit 0 on end of input\nstderr:\n%s", p.cmd.ProcessState, time.Since(start), p.stderr)
	}
	if strings.Contains(p.stderr.String(), "level=ERROR") {
		t.Errorf("amem mcp logged errors:\n%s", p.stderr)
	}
}

func TestMCPProcessEveryTool(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mcp.db")
	p := startMCP(t, "--db", db, "--namespace", "me", "--verbose")
	if info := p.cs.InitializeResult().ServerInfo; info.Name != "amem" || info.Version != version {
		t.Fatalf("server info %+v", info)
	}
	mcptest.Exercise(t, p.cs, "")
	p.close(t)
	// The SDK client read every answer from stdout, so the log it asked
	// for (--verbose) went elsewhere: stderr.
	if !strings.Contains(p.stderr.String(), "session") {
		t.Fatalf("no log on stderr with --verbose:\n%s", p.stderr)
	}
	if stats := mustCLI(t, "", "stats", "--db", db); !strings.Contains(stats, "me: 3 notes") {
		t.Fatalf("--namespace me is not the tools' default namespace: %s", stats)
	}
}

func TestMCPProcessStopsOnSIGTERM(t *testing.T) {
	p := startMCP(t, "--db", filepath.Join(t.TempDir(), "mcp.db"), "--log-format", "json")
	mcptest.Call[wire.Note](t, p.cs, "add_memory", mcptest.Args{"content": "stored before the signal"})
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- p.cs.Wait() }()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("amem mcp still serving 30 s after SIGTERM")
	}
	p.close(t)
	if p.stderr.Len() == 0 {
		t.Fatal("amem mcp logged nothing")
	}
	for _, line := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		if line != "" && !json.Valid([]byte(line)) {
			t.Fatalf("--log-format json wrote a line that is not JSON: %q", line)
		}
	}
}
