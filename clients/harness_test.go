package clients

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// binDir holds the amem command, built by the first test that starts a
// server (the coverage test needs none), and the throwaway HOME.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "amem-clients-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	if err := os.Mkdir(filepath.Join(dir, "home"), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var buildAmem = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "amem")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/amem-dev/amem/cmd/amem").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building amem: %v\n%s", err, out)
	}
	return bin, nil
})

// live is a running `amem serve` with two keys: Key reaches namespace NS
// only, AdminKey every namespace.
type live struct {
	URL, NS, Key, AdminKey string
}

// env is what a client's test process needs to reach s.
func (s live) env() []string {
	return append(hermeticEnv(), "AMEM_URL="+s.URL, "AMEM_NS="+s.NS, "AMEM_KEY="+s.Key, "AMEM_ADMIN_KEY="+s.AdminKey)
}

// hermeticEnv is the environment for every process the tests start:
// without AMEM_ settings, and with a throwaway HOME so that no user
// configuration (~/.config/amem, npm's and pip's settings) changes what
// they do. Python writes no bytecode into the source tree.
func hermeticEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AMEM_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+filepath.Join(binDir, "home"), "PYTHONDONTWRITEBYTECODE=1")
}

// startServer runs `amem serve` on a fresh SQLite database with the
// lexical embedder and the offline curator (nothing to download, no LLM),
// on a free port, until the test ends.
func startServer(t *testing.T) live {
	t.Helper()
	bin, err := buildAmem()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "amem.db")
	amem := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"--db", db, "--embedder", "lexical", "--curator", "offline"}, args...)...)
		cmd.Env = hermeticEnv()
		return cmd
	}
	key := func(args ...string) string {
		out, err := amem(append([]string{"keys", "create"}, args...)...).Output()
		if err != nil {
			t.Fatalf("amem keys create %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	s := live{NS: "agent", Key: key("--namespace", "agent"), AdminKey: key("--admin")}

	serve := amem("serve", "--addr", "127.0.0.1:0", "--log-format", "json")
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer // the server's log, shown when the test fails
	addr := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.Write(sc.Bytes())
			log.WriteByte('\n')
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				addr <- line.Addr
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		_ = serve.Process.Kill()
		_ = serve.Wait()
		<-drained
		if t.Failed() {
			t.Logf("amem serve log:\n%s", log.String())
		}
	})
	select {
	case s.URL = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("amem serve did not start within 30s")
	}
	return s
}

// run runs cmd, failing the test with its output when it fails.
func run(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return string(out)
}

// need fails the test when a tool the clients' tests run is missing: CI
// must not pass without running them.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to test the clients: %v", tool, err)
		}
	}
}
