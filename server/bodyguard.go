package server

import (
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// A client must not hold a connection by trickling a request body. Two
// things did: net/http, before it writes an answer a handler gave without
// reading the body (a 401, a 429, a 404), reads up to 256 KiB of that
// body to keep the connection, with no deadline; and /mcp set none. So
// every request with a body gets a read deadline of Options.BodyTimeout
// from its start, lifted once the body has been read to its end (a long
// answer, such as an MCP event stream, is not cut); and an error answer
// written while the body is unread closes the connection instead of
// reading on.

// hasBody reports whether r has a body to read: a length, or chunks.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// guardBody sets the body's deadline and returns the request and writer
// to serve with.
func (s *Server) guardBody(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	if !hasBody(r) {
		return w, r
	}
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)); err != nil {
		return w, r // not a connection with deadlines (a test recorder, HTTP/2's own limits)
	}
	b := &guardedBody{ReadCloser: r.Body, rc: rc}
	r.Body = b
	return &closeUnread{ResponseWriter: w, body: b}, r
}

// guardedBody lifts the read deadline once the body has been read to
// its end.
type guardedBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done atomic.Bool
}

func (b *guardedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done.Swap(true) {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// closeUnread marks an error answer written before the body was read to
// its end Connection: close, and stops net/http reading the rest.
type closeUnread struct {
	http.ResponseWriter
	body    *guardedBody
	written bool
}

func (w *closeUnread) WriteHeader(code int) {
	if !w.written {
		w.written = true
		if code >= 400 && !w.body.done.Load() {
			// Connection: close alone still lets net/http read up to
			// 256 KiB of the body first; a deadline of now ends that.
			w.Header().Set("Connection", "close")
			_ = w.body.rc.SetReadDeadline(time.Now())
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *closeUnread) Write(b []byte) (int, error) {
	w.written = true
	return w.ResponseWriter.Write(b)
}

func (w *closeUnread) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes flushes on, for the handlers that assert http.Flusher.
func (w *closeUnread) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }
