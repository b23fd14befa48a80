package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/amem-dev/amem/internal/pgtest"
)

// TestMain lets the test binary stand in for the amem binary: run with
// AMEM_TEST_RUN_MAIN=1 it is amem, so tests can start real processes
// (serve, mcp), signal and kill them, without a separate build. The tests
// get a PostgreSQL database of their own (see pgtest).
func TestMain(m *testing.M) {
	if os.Getenv("AMEM_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(pgtest.Main(m, os.Getenv("AMEM_TEST_POSTGRES")))
}

// amemCommand is a real amem process with args (the lexical embedder
// unless args choose one), with env added to the test's environment.
func amemCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(args, "--embedder", "lexical")...)
	cmd.Env = append(append(os.Environ(), "AMEM_TEST_RUN_MAIN=1"), env...)
	return cmd
}
