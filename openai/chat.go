package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	amem "github.com/amem-dev/amem"
)

// Chat is an amem.LLM over an OpenAI-compatible /chat/completions
// endpoint. It is safe for concurrent use.
type Chat struct {
	cfg    Config
	client sdk.ChatCompletionService
	sem    semaphore
	// maxCompletionTokens: OpenAI's reasoning models reject max_tokens,
	// and most local servers don't know max_completion_tokens, so the
	// field depends on who we talk to.
	maxCompletionTokens bool
	// mode is the structured-output mode in use (a level below); with
	// StructuredAuto it only moves down, once per rejection, and stays
	// there for the life of the client so that later calls don't pay for
	// a rejected request each.
	mode atomic.Int32
}

var _ amem.LLM = (*Chat)(nil)

// Structured-output levels, from strongest to weakest.
const (
	levelSchema int32 = iota
	levelObject
	levelNone
)

// NewChat returns a Chat for cfg; cfg.Model is required.
func NewChat(cfg Config) (*Chat, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Chat{cfg: cfg, client: sdk.NewChatCompletionService(cfg.options()...), sem: make(semaphore, cfg.MaxConcurrency)}
	if u, err := url.Parse(cfg.BaseURL); err == nil && strings.EqualFold(u.Hostname(), "api.openai.com") {
		c.maxCompletionTokens = true
	}
	switch cfg.StructuredOutput {
	case StructuredJSONObject:
		c.mode.Store(levelObject)
	case StructuredNone:
		c.mode.Store(levelNone)
	}
	return c, nil
}

// Complete runs one chat completion. With req.Schema it asks for JSON as
// Config.StructuredOutput says; the answer is still the caller's to
// validate. Every error is an *amem.ProviderError.
func (c *Chat) Complete(ctx context.Context, req amem.LLMRequest) (amem.LLMResponse, error) {
	if err := c.sem.acquire(ctx); err != nil {
		return amem.LLMResponse{}, &amem.ProviderError{Provider: provider, Err: fmt.Errorf("chat completion: waiting for a slot: %w", err)}
	}
	defer c.sem.release()
	for {
		level := c.mode.Load()
		params, err := c.params(req, level)
		if err != nil {
			return amem.LLMResponse{}, &amem.ProviderError{Provider: provider, Err: fmt.Errorf("chat completion: %w", err)}
		}
		var res *http.Response
		comp, err := c.client.New(ctx, params, option.WithResponseInto(&res))
		if err != nil {
			if req.Schema != nil && c.cfg.StructuredOutput == StructuredAuto && level < levelNone &&
				ctx.Err() == nil && formatRejected(err) {
				// Another goroutine may have moved down already; either
				// way the next loop uses the lower level.
				c.mode.CompareAndSwap(level, level+1)
				continue
			}
			return amem.LLMResponse{}, wrapError(ctx, "chat completion", err)
		}
		return toResponse(comp, res, c.cfg.Model)
	}
}

// params maps an amem request to the SDK's, at a structured-output level.
func (c *Chat) params(req amem.LLMRequest, level int32) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: c.cfg.Model}
	system := req.System
	if req.Schema != nil && level > levelSchema {
		// Without json_schema the model only knows the schema from the
		// prompt. JSON mode also requires the word "JSON" in the messages.
		system = strings.TrimSpace(system + "\n\n" + schemaInstructions(req.Schema))
	}
	if system != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(system))
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "user":
			p.Messages = append(p.Messages, sdk.UserMessage(m.Content))
		case "assistant":
			p.Messages = append(p.Messages, sdk.AssistantMessage(m.Content))
		case "system":
			p.Messages = append(p.Messages, sdk.SystemMessage(m.Content))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	if req.MaxTokens > 0 {
		if c.maxCompletionTokens {
			p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = sdk.Int(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	if req.Schema != nil {
		switch level {
		case levelSchema:
			js := sdk.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:   schemaName(req.Schema.Name),
				Strict: sdk.Bool(true),
				Schema: req.Schema.Schema,
			}
			if req.Schema.Description != "" {
				js.Description = sdk.String(req.Schema.Description)
			}
			p.ResponseFormat.OfJSONSchema = &sdk.ResponseFormatJSONSchemaParam{JSONSchema: js}
		case levelObject:
			p.ResponseFormat.OfJSONObject = &sdk.ResponseFormatJSONObjectParam{}
		}
	}
	return p, nil
}

// schemaInstructions asks for the JSON in words, for the levels where the
// server does not enforce the schema.
func schemaInstructions(s *amem.JSONSchema) string {
	var b strings.Builder
	b.WriteString("Answer with a single JSON object and nothing else (no prose, no code fences)")
	if s.Description != "" {
		b.WriteString(": " + s.Description)
	}
	b.WriteString(". It must validate against this JSON Schema:\n")
	b.Write(s.Schema)
	return b.String()
}

var nameUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// schemaName makes a name OpenAI accepts: [a-zA-Z0-9_-], at most 64.
func schemaName(name string) string {
	name = nameUnsafe.ReplaceAllString(name, "_")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		name = "response"
	}
	return name
}

// formatRejected reports whether err is the server saying it doesn't do
// the response_format asked for. Servers word this differently (OpenAI
// names the param, vLLM and llama.cpp the format, gateways pass either
// through), so any 400 or 422 that mentions the format counts; a 400 for
// another reason is left alone so as not to downgrade for nothing.
func formatRejected(err error) bool {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	if apiErr.StatusCode != http.StatusBadRequest && apiErr.StatusCode != http.StatusUnprocessableEntity {
		return false
	}
	if apiErr.Param == "response_format" || strings.HasPrefix(apiErr.Param, "response_format.") {
		return true
	}
	text := strings.ToLower(apiErr.Message + " " + apiErr.Code + " " + rawBody(apiErr))
	for _, s := range []string{"response_format", "response format", "json_schema", "json schema", "json_object", "structured output"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// toResponse maps a completion to amem's response.
func toResponse(comp *sdk.ChatCompletion, res *http.Response, model string) (amem.LLMResponse, error) {
	var out amem.LLMResponse
	if res != nil {
		out.RequestID = res.Header.Get("x-request-id")
	}
	if comp == nil || len(comp.Choices) == 0 {
		return out, &amem.ProviderError{Provider: provider, RequestID: out.RequestID, Err: errors.New("chat completion: response has no choices")}
	}
	choice := comp.Choices[0]
	out.Text = choice.Message.Content
	out.FinishReason = finishReason(choice.FinishReason)
	if choice.Message.Refusal != "" {
		out.FinishReason = amem.FinishRefusal
		out.Text = choice.Message.Refusal
	}
	out.Usage = amem.Usage{
		PromptTokens:     int(comp.Usage.PromptTokens),
		CompletionTokens: int(comp.Usage.CompletionTokens),
	}
	out.Model = comp.Model
	if out.Model == "" {
		out.Model = model
	}
	return out, nil
}

// finishReason normalises a finish_reason.
func finishReason(r string) string {
	switch r {
	case "stop":
		return amem.FinishStop
	case "length":
		return amem.FinishLength
	case "content_filter":
		return amem.FinishRefusal
	default:
		// tool_calls, function_call, or a server's own word.
		return amem.FinishOther
	}
}
