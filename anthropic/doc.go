// Package anthropic provides an amem.LLM backed by Anthropic's Messages API
// (POST /v1/messages), through the official Go SDK
// github.com/anthropics/anthropic-sdk-go/v2.
//
// # What it supports
//
// One non-streaming Messages call per Complete: a system prompt, user and
// assistant turns of text, and max_tokens. When the request carries an
// amem.JSONSchema the client asks for JSON outputs, output_config.format
// {"type":"json_schema"}, and the reply's text is the JSON. Models that
// don't do JSON outputs (before Claude's 4.5 generation) answer 400 naming
// the format; the client then asks again with a single tool named after
// the schema, with the schema as its input_schema, forced with tool_choice
// {"type":"tool"}, returns the tool's input as LLMResponse.Text, and keeps
// to tool use for its life (Config.StructuredOutput picks either way
// outright). JSON outputs come first because a forced tool also costs the
// API's tool-use system prompt, about 300 tokens a call, which is a fifth
// of a curator's Add. Without a schema, Text is the reply's text blocks
// joined.
// Stop reasons map to amem's finish reasons: end_turn, stop_sequence and
// tool_use to FinishStop, max_tokens (and model_context_window_exceeded) to
// FinishLength, refusal to FinishRefusal. Usage comes from input_tokens and
// output_tokens and RequestID from the request-id header.
//
// LLMRequest.Temperature is ignored: API version 2026-10-21, which SDK v2
// speaks, has no temperature parameter. Images, streaming, prompt caching
// and extended thinking are not used.
//
// # Configuration
//
// Config holds everything; its zero fields take the documented defaults
// (Timeout 60s per attempt, MaxRetries 3, MaxConcurrency 4, MaxTokens 1024:
// the API requires max_tokens). The package reads no environment variable
// (the amem command resolves ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and its
// own AMEM_LLM_API_KEY and AMEM_LLM_BASE_URL into a Config), and New keeps
// the SDK from reading a credential, base URL or extra headers from the
// environment itself, so what Config says is what is sent. The SDK still records an OpenTelemetry
// span per call through the globally registered tracer provider (a no-op
// unless the program registers one).
//
// # Retries, timeouts and concurrency
//
// Retries are the SDK's, whose source does what a careful hand-rolled loop
// would: a failed attempt is retried on a connection error, an attempt
// timeout, 408, 409, 429 and any 5xx (529 overloaded included), up to
// MaxRetries times. The wait is the server's Retry-After-Ms or Retry-After
// (seconds or HTTP date) when given, else 0.5s doubling per retry, capped at
// 8s, less up to 25% random jitter so that clients that failed together do
// not retry together. A server's x-should-retry header overrides the status.
// Config.Timeout bounds each attempt; bound the whole call, retries
// included, with the ctx given to Complete. A cancelled ctx stops the call at
// once and is never retried.
//
// A Client lets at most MaxConcurrency calls run at once; the others wait
// for a slot, or for their ctx. A slot is held through the call's retries
// and backoff, so a rate-limited API sees fewer clients, not more retries.
//
// Every error from Complete is an *amem.ProviderError with Provider
// "anthropic": Status is the HTTP status (0 for network errors, timeouts,
// cancellation and invalid requests), Retryable says whether a new call may
// succeed, and RetryAfter and RequestID come from the last response. Invalid
// requests (no messages, an unknown role, a schema without a name or that is
// not a JSON object) wrap amem.ErrInvalid and are never sent.
//
// # Example
//
//	llm, err := anthropic.New(anthropic.Config{APIKey: key, Model: "claude-sonnet-4-5"})
//	if err != nil {
//		return err
//	}
//	resp, err := llm.Complete(ctx, amem.LLMRequest{
//		System:   "Extract keywords.",
//		Messages: []amem.Message{{Role: "user", Content: note}},
//		Schema:   &amem.JSONSchema{Name: "keywords", Schema: schema},
//	})
//	var pe *amem.ProviderError
//	if errors.As(err, &pe) && pe.Retryable {
//		// try again later, after pe.RetryAfter
//	}
package anthropic
