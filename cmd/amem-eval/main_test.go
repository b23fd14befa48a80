package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/amem-dev/amem/internal/pgtest"
)

// TestMain gives the tests a PostgreSQL database of their own (see
// pgtest).
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, os.Getenv("AMEM_TEST_POSTGRES")))
}

// evalCLI runs amem-eval with args and the lexical embedder.
func evalCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append(args, "--embedder", "lexical")
	err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

// mustEval is evalCLI's stdout; an error fails the test.
func mustEval(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := evalCLI(t, args...)
	if err != nil {
		t.Fatalf("amem-eval %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	return out
}
