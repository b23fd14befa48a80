package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelPullSaysItOnce: pull's last line ("installed ..." or "already
// installed") is on stderr once, and not repeated on stdout. The model is
// the one installed for the other tests; a fake npm first on PATH fails
// the test if pull tries to fetch it again.
func TestModelPullSaysItOnce(t *testing.T) {
	model := filepath.Dir(filepath.Dir(modelDirForTest(t)))
	if _, err := os.Stat(filepath.Join(model, "dist", "model.json")); err != nil {
		t.Skipf("SKIPPING: the USE-lite model is not installed (%v); run 'amem model pull' (CI does)", err)
	}
	bin := t.TempDir()
	called := filepath.Join(bin, "called")
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\ntouch "+called+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"model", "pull", "--model-dir", model}, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("model pull: %v\n%s", err, errb.String())
	}
	if _, err := os.Stat(called); err == nil {
		t.Fatal("pull ran npm for a model that is installed")
	}
	if out.Len() != 0 || strings.Count(errb.String(), model) != 1 || !strings.Contains(errb.String(), "already installed") {
		t.Fatalf("stdout %q, stderr %q: want the one line on stderr", out.String(), errb.String())
	}
}
