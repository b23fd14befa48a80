package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The vendored Cytoscape must be the file its README names: a change to
// it is a change to this constant, reviewed with the README.
const (
	cytoscapeFile   = "static/vendor/cytoscape/cytoscape.esm.min.mjs"
	cytoscapeSHA256 = "aa33b0103bbdb721aeb1506000cb6e056692400baba7264c552d000b09da01f2"
)

func TestVendoredCytoscape(t *testing.T) {
	raw, err := files.ReadFile(cytoscapeFile)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != cytoscapeSHA256 {
		t.Errorf("%s has sha256 %s, want %s (see its README)", cytoscapeFile, got, cytoscapeSHA256)
	}
	readme, err := files.ReadFile("static/vendor/cytoscape/README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), cytoscapeSHA256) {
		t.Errorf("the vendored README does not name sha256 %s", cytoscapeSHA256)
	}
	if _, err := files.ReadFile("static/vendor/cytoscape/LICENSE"); err != nil {
		t.Errorf("the licence must sit beside the vendored file: %v", err)
	}
}

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec
}

// TestHeaders: every file of the UI, and its errors, come with the
// security headers, and scripts with a JavaScript type (nosniff refuses a
// module script without one).
func TestHeaders(t *testing.T) {
	h := Handler("/ui")
	paths := []string{"/ui/", "/ui/no-such-file", "/ui/js/"}
	err := fs.WalkDir(files, "static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, "/ui/"+strings.TrimPrefix(p, "static/"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
			"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
	}
	for _, p := range paths {
		rec := get(t, h, p)
		for k, v := range want {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("GET %s: %s %q, want %q", p, k, got, v)
			}
		}
		ct := rec.Header().Get("Content-Type")
		switch {
		case strings.HasSuffix(p, ".js"), strings.HasSuffix(p, ".mjs"):
			if !strings.HasPrefix(ct, "text/javascript") {
				t.Errorf("GET %s: Content-Type %q", p, ct)
			}
		case p == "/ui/":
			if rec.Code != 200 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(rec.Body.String(), `src="js/app.js"`) {
				t.Errorf("GET /ui/: %d %q %.100s", rec.Code, ct, rec.Body)
			}
		case p == "/ui/no-such-file", p == "/ui/js/":
			if rec.Code != 404 || ct != "application/problem+json" || !strings.Contains(rec.Body.String(), `"status":404`) {
				t.Errorf("GET %s: %d %q %s, want a 404 problem (no directory listings)", p, rec.Code, ct, rec.Body)
			}
		}
	}
}

// TestNoMarkupFromData keeps the rule the UI's safety rests on: data
// becomes text nodes only, so no script may assign HTML.
func TestNoMarkupFromData(t *testing.T) {
	err := fs.WalkDir(files, "static/js", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			if strings.Contains(string(raw), bad) {
				t.Errorf("%s uses %s; build nodes with dom.js's h and text", p, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
