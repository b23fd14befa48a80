package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel"
)

func TestTracingOn(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"}, false},
	} {
		if got := tracingOn(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: tracingOn %v, want %v", c.env, got, c.want)
		}
	}
}

// TestSetupTracingOff checks that without the variables nothing is
// installed: the global provider stays the API's no-op one.
func TestSetupTracingOff(t *testing.T) {
	before := otel.GetTracerProvider()
	shutdown, err := setupTracing(context.Background(), func(string) string { return "" }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if otel.GetTracerProvider() != before {
		t.Error("a tracer provider was installed with tracing off")
	}
	if err := shutdown(); err != nil {
		t.Fatal(err)
	}
}

// TestSetupTracingExports checks that with OTEL_EXPORTER_OTLP_ENDPOINT set
// a span reaches the collector over OTLP/HTTP by the time shutdown
// returns.
func TestSetupTracingExports(t *testing.T) {
	var posts atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" {
			posts.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	before := otel.GetTracerProvider()
	defer otel.SetTracerProvider(before)
	shutdown, err := setupTracing(context.Background(), os.Getenv, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	_, span := otel.Tracer("test").Start(context.Background(), "test.span")
	span.End()
	if err := shutdown(); err != nil {
		t.Fatal(err)
	}
	if posts.Load() == 0 {
		t.Error("no span was exported to the collector")
	}
}
