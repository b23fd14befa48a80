package server

import (
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem"
)

// startSpan starts a request's server span, named by its route pattern
// (the semantic conventions' low-cardinality name), as a child of the
// caller's trace when the request carries one the global propagator
// reads. The path, the query and the key are left out: they name
// namespaces and hold queries and tokens.
func (s *Server) startSpan(r *http.Request, rt route) (*http.Request, trace.Span) {
	tp := s.opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	ctx, span := tp.Tracer(amem.TracerName).Start(ctx, rt.pattern(), trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String("http.request.method", r.Method),
			attribute.String("http.route", rt.path),
		))
	return r.WithContext(ctx), span
}

// endSpan records the response status; a 5xx is the server's error, a
// 4xx the client's, which the conventions leave unset on a server span.
func endSpan(span trace.Span, status int) {
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}
