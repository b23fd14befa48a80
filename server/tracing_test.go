package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

// TestRequestSpans checks that an API request is a server span named by
// its route, with the method, route and status, that the Memory's spans
// are its children, and that neither the body, the path's values nor the
// key are in it.
func TestRequestSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	srv := httptest.NewServer(New(mem, Options{Keys: st, Logger: slog.New(slog.DiscardHandler), TracerProvider: tp}))
	t.Cleanup(srv.Close)
	k, token, err := auth.NewKey("test", true, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	send := func(method, path, body string) int {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := send("POST", "/v1/namespaces/wombats/notes", `{"content":"the okapi sleeps"}`); code != http.StatusCreated {
		t.Fatalf("add: %d", code)
	}
	if code := send("GET", "/v1/namespaces/wombats/notes/01H00000000000000000000XYZ", ""); code != http.StatusNotFound {
		t.Fatalf("get: %d", code)
	}

	spans := rec.Ended()
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = s
		for _, kv := range s.Attributes() {
			v := kv.Value.Emit()
			// The Memory's spans name the namespace; the request's do not
			// copy the path.
			for _, secret := range []string{"okapi", token, "wombats", "XYZ"} {
				if strings.Contains(v, secret) && (strings.Contains(s.Name(), "/") || secret == "okapi" || secret == token) {
					t.Errorf("span %s attribute %s holds %q", s.Name(), kv.Key, secret)
				}
			}
		}
	}
	for _, c := range []struct {
		name, route string
		status      int64
	}{
		{"POST /v1/namespaces/{ns}/notes", "/v1/namespaces/{ns}/notes", 201},
		{"GET /v1/namespaces/{ns}/notes/{id}", "/v1/namespaces/{ns}/notes/{id}", 404},
	} {
		s, ok := byName[c.name]
		if !ok {
			t.Fatalf("no span %q among %d", c.name, len(spans))
		}
		got := map[string]any{}
		for _, kv := range s.Attributes() {
			got[string(kv.Key)] = kv.Value.AsInterface()
		}
		if got["http.route"] != c.route || got["http.response.status_code"] != c.status || got["http.request.method"] != s.Name()[:strings.IndexByte(s.Name(), ' ')] {
			t.Errorf("span %s: %v", c.name, got)
		}
		if s.SpanKind().String() != "server" || s.Status().Code.String() != "Unset" {
			t.Errorf("span %s: kind %s, status %v", c.name, s.SpanKind(), s.Status())
		}
	}
	add, ok := byName["amem.Add"]
	if !ok || add.Parent().SpanID() != byName["POST /v1/namespaces/{ns}/notes"].SpanContext().SpanID() {
		t.Errorf("amem.Add is not a child of the request's span")
	}
}
