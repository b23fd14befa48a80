package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLITagSource: show says which tags the curator added, search's
// JSON carries them, and --tag-source caller leaves a curator's tag out.
func TestCLITagSource(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	const given, guessed = "01JAAAAAAAAAAAAAAAAAAAAAAA", "01JAAAAAAAAAAAAAAAAAAAAAAB"
	// Exported records keep curator tags; no curator runs here.
	records := `{"id": "` + given + `", "namespace": "ns", "content": "my dog Rex", "tags": ["pets"], "version": 1, "enrichment": {"state": "done"}}
{"id": "` + guessed + `", "namespace": "ns", "content": "walked past a dog", "tags": ["outdoors", "pets"], "curator_tags": ["pets"], "version": 1, "enrichment": {"state": "done"}}
`
	mustCLI(t, records, "import", "--db", db, "--curator", "none", "--embedder", "lexical")

	out := mustCLI(t, "", "show", "--db", db, "--namespace", "ns", guessed)
	if !strings.Contains(out, "tags:     outdoors, pets\n") || !strings.Contains(out, "curated:  pets (") {
		t.Errorf("show:\n%s\nwant the tags and the curator's among them", out)
	}
	if out := mustCLI(t, "", "show", "--db", db, "--namespace", "ns", given); strings.Contains(out, "curated:") {
		t.Errorf("show of a note with the caller's tags only:\n%s", out)
	}

	for source, want := range map[string][]string{
		"any":     {given, guessed},
		"caller":  {given},
		"curator": {guessed},
	} {
		var res []struct {
			ID          string   `json:"id"`
			CuratorTags []string `json:"curator_tags"`
		}
		js := mustCLI(t, "", "search", "--db", db, "--namespace", "ns", "--json", "--embedder", "lexical",
			"--tag", "pets", "--tag-source", source, "dog")
		if err := json.Unmarshal([]byte(js), &res); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.ID)
			if r.ID == guessed && !slices.Equal(r.CuratorTags, []string{"pets"}) {
				t.Errorf("search --json: curator_tags %v, want [pets]", r.CuratorTags)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("search --tag-source %s: %v, want %v", source, got, want)
		}
	}

	var stdout, stderr, msg bytes.Buffer
	err := run(context.Background(), []string{"search", "--db", db, "--namespace", "ns", "--embedder", "lexical",
		"--tag", "pets", "--tag-source", "robot", "dog"}, strings.NewReader(""), &stdout, &stderr)
	if code := exitCode(err, &msg); code != exitUsage || !strings.Contains(msg.String(), "--tag-source") {
		t.Errorf("--tag-source robot: exit %d, %q; want exit %d naming the flag", code, msg.String(), exitUsage)
	}
}
