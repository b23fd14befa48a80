// Package npmtest gives tests the Node tools pinned in a folder of the
// repository (a package.json and its package-lock.json): the OpenAPI
// linter, the MCP inspector, the TypeScript compiler. Missing node or npm
// fails the test rather than skipping it, so that CI cannot pass without
// running them.
package npmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Bin returns the path of the executable name that the packages pinned in
// dir provide, running `npm ci` there first unless it is installed
// already (the first run needs the npm registry).
func Bin(t testing.TB, dir, name string) string {
	t.Helper()
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed by this test (CI installs it): %v", tool, err)
		}
	}
	bin := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	ci := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	ci.Dir = dir
	if out, err := ci.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("npm ci in %s did not install %s: %v", dir, name, err)
	}
	return bin
}
