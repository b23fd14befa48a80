package server

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/amem-dev/amem/internal/npmtest"
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
	dir := filepath.Join("testdata", "redocly")
	bin := npmtest.Bin(t, dir, "redocly")
	lint := exec.Command(bin, "lint", "--config", "redocly.yaml", "../../openapi.json")
	lint.Dir = dir
	if out, err := lint.CombinedOutput(); err != nil {
		t.Fatalf("redocly lint openapi.json: %v\n%s", err, out)
	}
}
