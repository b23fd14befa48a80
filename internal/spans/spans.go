// Package spans holds what the packages that trace share: the tracer's
// lookup, the end of a span with its error, and the attribute keys two or
// more of them set, so a trace reads the same whichever package made a
// span.
//
// Span attributes carry namespaces, note IDs and counts, never a note's
// content, a query or a key: traces leave the process for a collector
// that may be run by someone else.
package spans

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem"
)

// Attribute keys set by more than one package.
const (
	Namespace  = attribute.Key("amem.namespace")
	NoteID     = attribute.Key("amem.note.id")
	Candidates = attribute.Key("amem.candidates")
	Links      = attribute.Key("amem.links")
	Evolutions = attribute.Key("amem.evolutions")
	InTokens   = attribute.Key("gen_ai.usage.input_tokens")
	OutTokens  = attribute.Key("gen_ai.usage.output_tokens")
)

// Start starts a span of amem's tracer from tp, or from the global
// provider when tp is nil. The global one is looked up per span, not
// kept, so a provider installed after the caller was made (as cmd/amem
// does) is used.
func Start(ctx context.Context, tp trace.TracerProvider, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(amem.TracerName).Start(ctx, name, trace.WithAttributes(attrs...))
}

// End records err, if any, on span and ends it.
func End(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Usage is a curator call's tokens as span attributes.
func Usage(u amem.Usage) []attribute.KeyValue {
	return []attribute.KeyValue{InTokens.Int(u.PromptTokens), OutTokens.Int(u.CompletionTokens)}
}
