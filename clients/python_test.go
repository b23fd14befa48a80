package clients

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPythonClient installs clients/python as its README says, into a
// fresh virtual environment with no package registry, and runs its tests
// against a live server.
func TestPythonClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a virtual environment; not in -short")
	}
	need(t, "python3")
	s := startServer(t)
	venv := filepath.Join(t.TempDir(), "v")
	python := filepath.Join(venv, "bin", "python")
	run(t, exec.Command("python3", "-m", "venv", venv))
	pip := exec.Command(python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--quiet", "./python")
	pip.Env = hermeticEnv()
	run(t, pip)
	// From the tests folder, so that the installed package is imported,
	// not the source tree's.
	tests := exec.Command(python, "-m", "unittest", "-v", "test_live")
	tests.Dir = filepath.Join("python", "tests")
	tests.Env = s.env()
	t.Log(run(t, tests))
}
