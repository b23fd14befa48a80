package mcpserver

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem"
)

// startSpan starts a tool call's span, named and attributed after the
// OpenTelemetry MCP conventions. The arguments are left out: they hold
// memories and queries.
func (t *tools) startSpan(ctx context.Context, tool string) (context.Context, trace.Span) {
	tp := t.tp
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(amem.TracerName).Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String("mcp.method.name", "tools/call"),
			attribute.String("gen_ai.tool.name", tool),
		))
}

// endSpan records the error the call failed with, if any.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
