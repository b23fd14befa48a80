package local

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// phaseCPU is a TracerProvider that adds up, per span name, the CPU time
// the calling thread spends between a span's start and its end: where
// BenchmarkApproximate's searches spend theirs (amem.search.vectors, the
// vector index with its exact re-ranking; amem.search.read, the store's
// read of the hits). Spans otherwise do nothing.
type phaseCPU struct {
	trace.TracerProvider
	mu   sync.Mutex
	took map[string][]time.Duration
}

func newPhaseCPU() *phaseCPU {
	return &phaseCPU{TracerProvider: noop.NewTracerProvider(), took: map[string][]time.Duration{}}
}

func (p *phaseCPU) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return phaseTracer{p.TracerProvider.Tracer(name, opts...), p}
}

// of returns the CPU times of the spans named name so far.
func (p *phaseCPU) of(name string) []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Duration(nil), p.took[name]...)
}

type phaseTracer struct {
	trace.Tracer
	p *phaseCPU
}

func (t phaseTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	ctx, s := t.Tracer.Start(ctx, name, opts...)
	c0, _ := threadCPU()
	return ctx, &phaseSpan{Span: s, p: t.p, name: name, c0: c0}
}

type phaseSpan struct {
	trace.Span
	p    *phaseCPU
	name string
	c0   time.Duration
}

func (s *phaseSpan) End(opts ...trace.SpanEndOption) {
	if c1, ok := threadCPU(); ok {
		s.p.mu.Lock()
		s.p.took[s.name] = append(s.p.took[s.name], c1-s.c0)
		s.p.mu.Unlock()
	}
	s.Span.End(opts...)
}
