package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/amem-dev/amem/internal/fakellm"
)

// TestLongCommandsShowProgress: export, reembed and enrich --retry
// report progress on stderr, in a log (not a terminal) as whole lines
// ending with the one that says the job is done; stdout keeps only
// results.
func TestLongCommandsShowProgress(t *testing.T) {
	oldExport, oldReembed := exportStep, reembedStep
	exportStep, reembedStep = 2, 2
	t.Cleanup(func() { exportStep, reembedStep = oldExport, oldReembed })

	// An LLM that is down at first: the notes fail, to be retried.
	var down atomic.Bool
	down.Store(true)
	model := &fakellm.Server{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, `{"error":{"message":"down for the test","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		model.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	db := filepath.Join(t.TempDir(), "p.db")
	for i := range 5 {
		_, stderr, err := amemCLI(t, "", "add", "--db", db, "--llm", "openai:"+fakellm.Model, fmt.Sprintf("note %d", i))
		if err != nil || !strings.Contains(stderr, "enrichment failed") {
			t.Fatalf("add with the LLM down: %v %q", err, stderr)
		}
	}
	down.Store(false)
	for _, tc := range []struct {
		args []string
		line string
	}{
		{[]string{"enrich", "--retry", "--llm", "openai:" + fakellm.Model}, "enriching notes: 5/5 (100%), done in "},
		{[]string{"export"}, "exporting notes: 5/5 (100%), done in "},
		{[]string{"reembed", "-n", "default"}, "re-embedding notes: 5/5 (100%), done in "},
	} {
		out, stderr, err := amemCLI(t, "", append(tc.args, "--db", db)...)
		if err != nil {
			t.Fatalf("amem %v: %v\n%s", tc.args, err, stderr)
		}
		if !strings.Contains(stderr, "\n"+tc.line) && !strings.HasPrefix(stderr, tc.line) || strings.Contains(stderr, "\r") {
			t.Fatalf("amem %v: stderr %q lacks the whole line %q", tc.args, stderr, tc.line)
		}
		if strings.Contains(out, "notes: ") && strings.Contains(out, "done in") {
			t.Fatalf("amem %v: progress on stdout: %q", tc.args, out)
		}
	}
	// A job of one step has no bar.
	exportStep = 5
	if _, stderr, _ := amemCLI(t, "", "export", "--db", db); strings.Contains(stderr, "exporting notes") {
		t.Fatalf("a one-page export drew progress: %q", stderr)
	}
}
