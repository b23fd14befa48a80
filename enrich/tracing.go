package enrich

import (
	"context"

	"github.com/amem-dev/amem"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span attributes carry namespaces, note IDs and counts, never a note's
// content: traces leave the process for a collector that may be run by
// someone else. The keys and span names are package memory's, so a
// trace reads the same whichever package made a span.
const (
	attrNamespace  = attribute.Key("amem.namespace")
	attrNoteID     = attribute.Key("amem.note.id")
	attrCandidates = attribute.Key("amem.candidates")
	attrLinks      = attribute.Key("amem.links")
	attrEvolutions = attribute.Key("amem.evolutions")
	attrInTokens   = attribute.Key("gen_ai.usage.input_tokens")
	attrOutTokens  = attribute.Key("gen_ai.usage.output_tokens")
)

// startSpan starts a span of the engine's tracer. The provider is looked
// up per span, not kept, so a global provider installed after New (as
// cmd/amem does) is used.
func (e *Engine) startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	tp := e.c.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(amem.TracerName).Start(ctx, name, trace.WithAttributes(attrs...))
}

// endSpan records err, if any, on span and ends it.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// usageAttrs are a curator call's tokens as span attributes.
func usageAttrs(u amem.Usage) []attribute.KeyValue {
	return []attribute.KeyValue{attrInTokens.Int(u.PromptTokens), attrOutTokens.Int(u.CompletionTokens)}
}
