package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
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

// fail answers an error of the library: its sentinel decides the status.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
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
	case errors.Is(err, context.DeadlineExceeded):
		problem(w, r, http.StatusGatewayTimeout, "the request took longer than %s", s.opts.Timeout)
	case errors.Is(err, context.Canceled):
		problem(w, r, 499, "the client closed the request")
	default:
		s.internal(w, r, err)
	}
}

func isAuthError(err error) bool {
	return errors.Is(err, auth.ErrNoToken) || errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrRevoked)
}

// decode reads a JSON body into v strictly: one object, no unknown fields,
// no trailing data. Errors are amem.ErrInvalid (or the body limit's
// *http.MaxBytesError), worded for the client. The Content-Type is not
// checked: every body is JSON, and `curl -d` sends a form type by default.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return bodyError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return fmt.Errorf("%w: the body must hold one JSON object and nothing after it", amem.ErrInvalid)
	}
	return nil
}

func bodyError(err error) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the request body is empty; send a JSON object", amem.ErrInvalid)
	case errors.As(err, &se):
		return fmt.Errorf("%w: malformed JSON at byte %d: %v", amem.ErrInvalid, se.Offset, err)
	case errors.As(err, &te):
		return fmt.Errorf("%w: field %q must be %s, not %s", amem.ErrInvalid, te.Field, te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: malformed JSON: the body ends early", amem.ErrInvalid)
	}
	// Unknown fields and other decoder complaints: its text names the field.
	return fmt.Errorf("%w: %v", amem.ErrInvalid, err)
}

// reply writes v as JSON with the status.
func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
