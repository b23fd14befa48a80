package llmcurator

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem"
)

// complete is the curator's one way to call the model: every call, a
// repair turn included, gets an llm.call span with the OpenTelemetry
// gen_ai attributes and its token counts. The prompt and the answer are
// not recorded: they hold notes' content.
func (c *Curator) complete(ctx context.Context, prompt string, attempt int, req amem.LLMRequest) (amem.LLMResponse, error) {
	tp := c.opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	ctx, span := tp.Tracer(amem.TracerName).Start(ctx, "llm.call", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("amem.llm.prompt", prompt),
			attribute.Int("amem.llm.attempt", attempt),
			attribute.Int("gen_ai.request.max_tokens", req.MaxTokens),
		))
	defer span.End()
	resp, err := c.llm.Complete(ctx, req)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return resp, err
	}
	span.SetAttributes(
		attribute.String("gen_ai.response.model", resp.Model),
		attribute.StringSlice("gen_ai.response.finish_reasons", []string{resp.FinishReason}),
		attribute.Int("gen_ai.usage.input_tokens", resp.Usage.PromptTokens),
		attribute.Int("gen_ai.usage.output_tokens", resp.Usage.CompletionTokens),
	)
	if resp.RequestID != "" {
		span.SetAttributes(attribute.String("gen_ai.response.id", resp.RequestID))
	}
	return resp, nil
}
