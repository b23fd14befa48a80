package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestOpenAPILint runs a real OpenAPI linter, Redocly CLI at the version
// pinned in testdata/redocly/package-lock.json, with every finding an
// error (testdata/redocly/redocly.yaml). It needs node and npm, and the
// npm registry the first time; it fails rather than skips without them,
// so that CI cannot pass without linting.
func TestOpenAPILint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs npm; not in -short")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "redocly"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to lint openapi.json: %v", tool, err)
		}
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "redocly")
	if _, err := os.Stat(bin); err != nil {
		ci := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		ci.Dir = dir
		if out, err := ci.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	lint := exec.Command(bin, "lint", "--config", "redocly.yaml", "../../openapi.json")
	lint.Dir = dir
	if out, err := lint.CombinedOutput(); err != nil {
		t.Fatalf("redocly lint openapi.json: %v\n%s", err, out)
	}
}
