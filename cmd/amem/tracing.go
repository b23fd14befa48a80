package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// tracingOn says whether the standard OpenTelemetry variables ask for
// traces: an OTLP endpoint is set and the SDK is not disabled. Unset, amem
// makes no exporter and its spans go to the API's no-op provider, at no
// cost.
func tracingOn(getenv func(string) string) bool {
	if getenv("OTEL_SDK_DISABLED") == "true" {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// setupTracing installs, when tracingOn, a global TracerProvider that
// batches spans to an OTLP/HTTP exporter and the W3C trace-context
// propagator (so an API request joins its caller's trace). The exporter
// reads the rest of its configuration (headers, timeout, protocol
// details) from the OTEL_EXPORTER_OTLP_* variables itself, and the
// resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. The returned
// shutdown flushes the spans still buffered; it is a no-op when tracing
// is off.
func setupTracing(ctx context.Context, getenv func(string) string, log *slog.Logger) (shutdown func() error, err error) {
	if !tracingOn(getenv) {
		return func() error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	// Later options win: the environment may rename the service.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "amem"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	// Export failures (a collector down) are logged, not fatal: traces
	// are a diagnostic, not part of serving.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing", "err", err) }))
	return func() error {
		// The process's context is cancelled by then (a signal); the
		// flush gets a few seconds of its own.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("tracing: %w", err)
		}
		return nil
	}, nil
}
