package memory

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem/internal/spans"
)

// Span attributes carry namespaces, note IDs, modes and counts, never a
// note's content, a query or a key (internal/spans).

// Span attribute keys: the shared ones from internal/spans, the rest the
// engine's own.
const (
	attrNamespace  = spans.Namespace
	attrNoteID     = spans.NoteID
	attrCandidates = spans.Candidates
	attrBatch      = attribute.Key("amem.batch.size")
	attrTexts      = attribute.Key("amem.texts")
	attrMode       = attribute.Key("amem.search.mode")
	attrK          = attribute.Key("amem.search.k")
	attrHits       = attribute.Key("amem.search.hits")
	attrFiltered   = attribute.Key("amem.search.filtered")
)

// startSpan starts a span of the Memory's tracer (see spans.Start).
func (m *Memory) startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return spans.Start(ctx, m.opts.TracerProvider, name, attrs...)
}

var endSpan = spans.End
