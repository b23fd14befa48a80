package clients

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/amem-dev/amem/internal/npmtest"
)

// TestTypeScriptClient installs clients/typescript as its README says
// (npm install of the folder, no registry needed: it has no dependencies)
// into a fresh project and runs its tests there against a live server.
func TestTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs npm; not in -short")
	}
	need(t, "node", "npm")
	s := startServer(t)
	client, err := filepath.Abs("typescript")
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "package.json"), []byte(`{"private": true, "type": "module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	npm := exec.Command("npm", "install", "--no-audit", "--no-fund", "--offline", client)
	npm.Dir = project
	npm.Env = hermeticEnv()
	run(t, npm)
	// The test imports "amem-client", which resolves from where the file
	// is: a copy in the project, beside its node_modules.
	test, err := os.ReadFile(filepath.Join("typescript", "test", "live.test.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "live.test.js"), test, 0o644); err != nil {
		t.Fatal(err)
	}
	node := exec.Command("node", "--test", "live.test.js")
	node.Dir = project
	node.Env = s.env()
	t.Log(run(t, node))
}

// TestTypeScriptTypes compiles test/typecheck/usage.ts, the README's agent
// loop and a call of every method, against index.d.ts with the
// TypeScript compiler pinned in test/typecheck/package-lock.json, strict:
// the declarations are written by hand, and this keeps them usable.
func TestTypeScriptTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs npm; not in -short")
	}
	dir, err := filepath.Abs(filepath.Join("typescript", "test", "typecheck"))
	if err != nil {
		t.Fatal(err)
	}
	tsc := npmtest.Bin(t, dir, "tsc")
	check := exec.Command(tsc, "-p", ".")
	check.Dir = dir
	run(t, check)
}
