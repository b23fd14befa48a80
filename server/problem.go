package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/internal/jsonin"
)

// Problem is an RFC 9457 problem details body (application/problem+json).
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
}

// problem writes an error response. The detail is for the client: it
// never holds internal errors (see internal).
func problem(w http.ResponseWriter, r *http.Request, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(Problem{
		Type:     "about:blank",
		Title:    http.StatusText(status),
		Status:   status,
		Detail:   fmt.Sprintf(format, args...),
		Instance: r.URL.Path,
	})
}

// internal logs an unexpected error and answers 500 without its text,
// which may name files or SQL.
func (s *Server) internal(w http.ResponseWriter, r *http.Request, err error) {
	s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	problem(w, r, http.StatusInternalServerError, "internal error; the server log has the cause")
}

// retryAfter is the Retry-After of an answer that the store can't take
// the request now: a database restarting is usually back within seconds.
const retryAfter = "1"

// unavailable answers 503 for a store that cannot take the request now
// (a database unreachable or restarting): the detail is the store's plain
// reason, which names no host; the log has the cause.
func (s *Server) unavailable(w http.ResponseWriter, r *http.Request, he *amem.HealthError) {
	s.storeDown.Fail(s.now(), fmt.Errorf("%s %s: %w", r.Method, r.URL.Path, he))
	w.Header().Set("Retry-After", retryAfter)
	problem(w, r, http.StatusServiceUnavailable, "the store is unavailable (%s); retry later", he.Reason)
}

// fail answers an error of the library: its sentinel decides the status.
// A store that says it cannot take requests now (an *amem.HealthError:
// its database unreachable, restarting, read-only or full) is a 503 with
// Retry-After, never a 500: nothing is wrong with the request or the
// server, and a retry may succeed.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var (
		mbe *http.MaxBytesError
		he  *amem.HealthError
	)
	switch {
	case errors.As(err, &mbe):
		problem(w, r, http.StatusRequestEntityTooLarge, "request body over %d bytes", mbe.Limit)
	case errors.Is(err, amem.ErrInvalid):
		problem(w, r, http.StatusBadRequest, "%v", err)
	case errors.Is(err, amem.ErrNotFound):
		problem(w, r, http.StatusNotFound, "%v", err)
	case errors.Is(err, amem.ErrConflict), errors.Is(err, amem.ErrDimensionMismatch):
		problem(w, r, http.StatusConflict, "%v", err)
	case errors.Is(err, amem.ErrClosed):
		problem(w, r, http.StatusServiceUnavailable, "the server is shutting down")
	case errors.Is(err, errors.ErrUnsupported):
		problem(w, r, http.StatusNotImplemented, "%v", err)
	case errors.Is(err, context.DeadlineExceeded):
		problem(w, r, http.StatusGatewayTimeout, "the request took longer than %s", s.opts.Timeout)
	case errors.Is(err, context.Canceled):
		problem(w, r, 499, "the client closed the request")
	case errors.As(err, &he):
		s.unavailable(w, r, he)
	case s.storeSaysDown(r, &he):
		// The error lost the store's verdict on the way (a batch's
		// error keeps only its note's cause), but the store has it.
		s.log.Debug("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		s.unavailable(w, r, he)
	default:
		s.internal(w, r, err)
	}
}

// storeSaysDown reports whether the store says now that it cannot take
// requests, and why. It asks Memory.Health, which a store answers from
// its recent verdict: a transaction that just failed for want of the
// database set it.
func (s *Server) storeSaysDown(r *http.Request, he **amem.HealthError) bool {
	err := s.mem.Health(context.WithoutCancel(r.Context()))
	return err != nil && errors.As(err, he)
}

func isAuthError(err error) bool {
	return errors.Is(err, auth.ErrNoToken) || errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrRevoked)
}

// decode reads a JSON body into v strictly: one object, no unknown
// fields, no trailing data, and no text that decoding would rewrite
// (invalid UTF-8, lone surrogate escapes). Errors are amem.ErrInvalid (or
// the body limit's *http.MaxBytesError), worded for the client. The
// Content-Type is not checked: every body is JSON, and `curl -d` sends a
// form type by default.
func decode(r *http.Request, v any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return fmt.Errorf("%w: the body could not be read: %v", amem.ErrInvalid, err)
	}
	if err := jsonin.Decode(data, v, "body"); err != nil {
		return fmt.Errorf("%w: %v", amem.ErrInvalid, err)
	}
	return nil
}

// reply writes v as JSON with the status.
func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// plainErrors gives the error answers of a handler that is not ours (the
// MCP SDK answers with http.Error's text/plain) the shape of every other
// error answer of the server: problem+json, with the text as the detail.
// Other answers, JSON-RPC errors in application/json included, pass
// through untouched.
func plainErrors(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pw := &problemWriter{ResponseWriter: w, r: r}
		h.ServeHTTP(pw, r)
		pw.finish()
	})
}

// problemWriter holds back a plain-text error answer to rewrite it.
type problemWriter struct {
	http.ResponseWriter
	r      *http.Request
	status int    // the error answer held back; 0 while there is none
	text   []byte // its text, up to maxPlainText bytes
}

const maxPlainText = 1 << 10

func (w *problemWriter) WriteHeader(code int) {
	ct := w.Header().Get("Content-Type")
	if w.status == 0 && code >= 400 && (ct == "" || strings.HasPrefix(ct, "text/plain")) {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *problemWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		return w.ResponseWriter.Write(b)
	}
	if room := maxPlainText - len(w.text); room > 0 {
		w.text = append(w.text, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// Flush lets event streams through; an error answer is written whole by
// finish.
func (w *problemWriter) Flush() {
	if w.status == 0 {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *problemWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *problemWriter) finish() {
	if w.status == 0 {
		return
	}
	w.Header().Del("Content-Length")
	problem(w.ResponseWriter, w.r, w.status, "%s", w.detail())
}

// detail words the held-back text like the API's own answers.
func (w *problemWriter) detail() string {
	status := http.StatusText(w.status)
	text := strings.TrimSpace(strings.ReplaceAll(string(w.text), "json: ", ""))
	text = strings.TrimPrefix(text, status+": ")
	switch allow := w.Header().Get("Allow"); {
	case w.status == http.StatusUnauthorized:
		return unauthorized // the SDK's reason ("no bearer token") helps nobody more
	case w.status == http.StatusMethodNotAllowed && allow != "":
		return fmt.Sprintf("%s is not allowed on %s; use %s", w.r.Method, w.r.URL.Path, allow)
	case text == "" || text == status:
		return strings.ToLower(status)
	}
	return text
}

// canonicalPath is the path ServeMux would redirect p to: no empty, .
// or .. segments; a trailing slash is kept.
func canonicalPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if strings.HasSuffix(p, "/") && np != "/" {
		np += "/"
	}
	return np
}
