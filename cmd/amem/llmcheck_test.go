package main

import (
	"bytes"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem/cmd/internal/cli"
)

// closedURL is the URL of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

// TestLLMCheckedAtStart: a configured LLM with no key, or whose server
// cannot be reached, stops a command that would call it before it stores
// anything (exit 2, saying what to set); commands that never call it do
// not check.
func TestLLMCheckedAtStart(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"AMEM_LLM_API_KEY", "AMEM_LLM_BASE_URL", "AMEM_LLM_HEADERS", "AMEM_CURATOR", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"} {
		t.Setenv(v, "")
	}
	db := filepath.Join(t.TempDir(), "l.db")
	mustCLI(t, "", "add", "--db", db, "stored before any LLM was configured")
	down := closedURL(t)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		msg  []string
	}{
		{"openai, no key", map[string]string{"AMEM_LLM": "openai:gpt-4o-mini"}, []string{"add", "x"},
			[]string{"the LLM openai:gpt-4o-mini has no API key", "OPENAI_API_KEY", "OPENAI_BASE_URL"}},
		{"anthropic, no key", map[string]string{"AMEM_LLM": "anthropic:claude-haiku-4-5"}, []string{"import", "--from", "text"},
			[]string{"no API key", "ANTHROPIC_API_KEY"}},
		{"server down", map[string]string{"AMEM_LLM": "openai:llama3.2", "OPENAI_BASE_URL": down}, []string{"enrich", "--retry"},
			[]string{"cannot be reached at " + down, "start its server", "OPENAI_BASE_URL"}},
		{"server down, flag", map[string]string{}, []string{"add", "--llm", "openai:llama3.2", "--llm-base-url", down, "x"},
			[]string{"cannot be reached", "--llm-base-url"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			start := time.Now()
			_, _, err := amemCLI(t, `{"content":"imported"}`, append(tc.args, "--db", db)...)
			var msg bytes.Buffer
			if code := exitCode(err, &msg); code != exitUsage {
				t.Fatalf("exit %d (%v), want %d", code, err, exitUsage)
			}
			for _, want := range tc.msg {
				if !strings.Contains(msg.String(), want) {
					t.Fatalf("message %q lacks %q", msg.String(), want)
				}
			}
			if took := time.Since(start); took > cli.LLMProbeTimeout+2*time.Second {
				t.Fatalf("the check took %v", took)
			}
			// A command that never calls the LLM makes no probe. (Without
			// a key, the Anthropic client refuses to be made at all, as
			// before, for every command.)
			if tc.env["AMEM_LLM"] == "anthropic:claude-haiku-4-5" {
				return
			}
			if out := mustCLI(t, "", "list", "--db", db); strings.Count(out, "\n") != 1 {
				t.Fatalf("list with a broken LLM: %q, want the one note stored before", out)
			}
		})
	}
	// A server of one's own needs no key; the offline curator needs no LLM.
	t.Setenv("AMEM_LLM", "openai:llama3.2")
	t.Setenv("OPENAI_BASE_URL", down)
	mustCLI(t, "", "add", "--db", db, "--curator", "offline", "the offline curator calls no LLM")
}
