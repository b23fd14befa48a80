package llmcurator

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/amem-dev/amem"
)

// TestLLMCallSpans checks that each model call, the repair turn included,
// is an llm.call span with its token counts, and that neither the prompt
// nor the answer is in it.
func TestLLMCallSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	bad := amem.LLMResponse{Text: "not json", FinishReason: amem.FinishStop, Model: "m-1", Usage: amem.Usage{PromptTokens: 90, CompletionTokens: 3}}
	good := ok(`{"keywords":["support group"],"tags":["community"],"context":"Caroline found support."}`)
	good.Model = "m-1"
	llm := &scripted{answers: []amem.LLMResponse{bad, good}}
	c := New(llm, &Options{TracerProvider: tp})
	if _, err := c.Construct(context.Background(), newNote()); err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2 (the call and its repair)", len(spans))
	}
	for i, want := range []amem.Usage{bad.Usage, good.Usage} {
		s := spans[i]
		got := map[string]string{}
		for _, kv := range s.Attributes() {
			got[string(kv.Key)] = kv.Value.Emit()
		}
		if s.Name() != "llm.call" || got["gen_ai.usage.input_tokens"] != strconv.Itoa(want.PromptTokens) ||
			got["gen_ai.usage.output_tokens"] != strconv.Itoa(want.CompletionTokens) ||
			got["gen_ai.response.model"] != "m-1" || got["amem.llm.prompt"] != "construct" || got["amem.llm.attempt"] != strconv.Itoa(i) {
			t.Errorf("span %d: %s %v", i, s.Name(), got)
		}
		for k, v := range got {
			if strings.Contains(v, "Caroline") || strings.Contains(v, "support") {
				t.Errorf("span %d attribute %s holds note text: %s", i, k, v)
			}
		}
	}
}

// TestLLMCallSpanError checks that a failed call is an error span.
func TestLLMCallSpanError(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	c := New(&failing{err: errors.New("provider down")}, &Options{TracerProvider: tp})
	if _, err := c.Construct(context.Background(), newNote()); err == nil {
		t.Fatal("no error")
	}
	spans := rec.Ended()
	if len(spans) != 1 || spans[0].Status().Code != codes.Error || spans[0].Status().Description != "provider down" {
		t.Fatalf("spans: %+v", spans)
	}
}
