package enrich

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem/internal/spans"
)

// The span attributes enrichment sets: package memory sets the same keys
// (internal/spans), so a trace reads the same whichever package made a
// span.
const (
	attrNamespace  = spans.Namespace
	attrNoteID     = spans.NoteID
	attrCandidates = spans.Candidates
	attrLinks      = spans.Links
	attrEvolutions = spans.Evolutions
)

// startSpan starts a span of the engine's tracer (see spans.Start).
func (e *Engine) startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return spans.Start(ctx, e.c.TracerProvider, name, attrs...)
}

var (
	endSpan    = spans.End
	usageAttrs = spans.Usage
)
