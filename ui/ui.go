// Package ui is amem's web UI: static files (plain ES modules and CSS, no
// build step) embedded in the binary, served under /ui/ with a strict
// Content-Security-Policy. The UI talks to the HTTP API only, with the API
// key the person signs in with, so it has no powers of its own: package
// server mounts it beside the API.
package ui

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var files embed.FS

// CSP allows only the UI's own files and API: no inline script or
// style, no other origin, no framing. Note text comes from agents and is
// untrusted; the UI renders it as text, and this policy is the second
// line should a bug ever let markup through.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// types are set explicitly: module scripts must come with a JavaScript
// type under nosniff, and the system's MIME table may not know .mjs.
var types = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".md":   "text/plain; charset=utf-8",
	".svg":  "image/svg+xml",
}

// Handler serves the UI; mount it at prefix + "/" (prefix "/ui").
func Handler(prefix string) http.Handler {
	static, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	fileServer := http.FileServerFS(static)
	return http.StripPrefix(prefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		// Embedded files have no modification time to revalidate against;
		// a new binary must not be mixed with an old cached module.
		h.Set("Cache-Control", "no-cache")
		name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
		if name == "" {
			name = "index.html"
		}
		if r.URL.Path != "/" && strings.HasSuffix(r.URL.Path, "/") || !exists(static, name) {
			notFound(w, prefix+r.URL.Path) // and no directory listings
			return
		}
		if t, ok := types[path.Ext(r.URL.Path)]; ok {
			h.Set("Content-Type", t)
		}
		fileServer.ServeHTTP(w, r)
	}))
}

func exists(fsys fs.FS, name string) bool {
	st, err := fs.Stat(fsys, name)
	return err == nil && !st.IsDir()
}

// notFound answers 404 as problem+json, as every other error of the
// server is (package server's problem, which this package does not
// import).
func notFound(w http.ResponseWriter, p string) {
	body, _ := json.Marshal(map[string]any{"type": "about:blank", "title": "Not Found", "status": http.StatusNotFound,
		"detail": "no such page of the web UI: " + p + "; open " + uiRoot(p)})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write(body)
}

func uiRoot(p string) string {
	if i := strings.Index(p[1:], "/"); i >= 0 {
		return p[:i+2]
	}
	return p
}
