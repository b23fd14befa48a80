// Package ui is amem's web UI: static files (plain ES modules and CSS, no
// build step) embedded in the binary, served under /ui/ with a strict
// Content-Security-Policy. The UI talks to the HTTP API only, with the API
// key the person signs in with, so it has no powers of its own: package
// server mounts it beside the API.
package ui

import (
	"embed"
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
		if r.URL.Path != "/" && strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		if t, ok := types[path.Ext(r.URL.Path)]; ok {
			h.Set("Content-Type", t)
		}
		fileServer.ServeHTTP(w, r)
	}))
}
