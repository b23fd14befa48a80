package clients

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// operationIDs are those of server/openapi.json, the document the server
// serves.
func operationIDs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "server", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ops := range doc.Paths {
		for _, op := range ops {
			ids = append(ids, op.OperationID)
		}
	}
	return ids
}

// snake is Python's name for an operationId: createNote is create_note.
func snake(id string) string {
	var b strings.Builder
	for _, r := range id {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// TestClientsCoverEveryOperation fails when an operation of the document
// has no method in a client, so that a route added to the server without
// its clients breaks the build. The live tests check that the methods
// work; this checks that none is missing.
func TestClientsCoverEveryOperation(t *testing.T) {
	for _, c := range []struct {
		file   string
		method func(id string) string // a regexp that finds id's method
	}{
		{"python/amem_client/client.py", func(id string) string { return `(?m)^    def ` + snake(id) + `\(` }},
		{"typescript/index.js", func(id string) string { return `(?m)^  (async )?` + id + `\(` }},
		{"typescript/index.d.ts", func(id string) string { return `(?m)^  ` + id + `\(` }},
	} {
		src, err := os.ReadFile(c.file)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, id := range operationIDs(t) {
			if !regexp.MustCompile(c.method(id)).Match(src) {
				t.Errorf("%s has no method for operation %s", c.file, id)
			}
		}
	}
}
