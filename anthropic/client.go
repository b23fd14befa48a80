package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/amem-dev/amem"
)

const provider = "anthropic"

// Client is an amem.LLM backed by the Anthropic Messages API. It is safe
// for concurrent use; at most Config.MaxConcurrency calls run at once.
type Client struct {
	messages  sdk.MessageService
	model     string
	maxTokens int
	timeout   time.Duration
	// sem holds one token per call in flight.
	sem chan struct{}
	// structured is Config.StructuredOutput; useTool is set once the
	// model has rejected JSON outputs under StructuredAuto, so that later
	// calls don't pay for a rejected request each.
	structured StructuredOutput
	useTool    atomic.Bool
}

var _ amem.LLM = (*Client)(nil)

// New returns a Client for cfg, with defaults for its zero fields. It
// returns an error wrapping amem.ErrInvalid when cfg has no APIKey or no
// Model. New makes no request.
func New(cfg Config) (*Client, error) {
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("anthropic: %w: no API key (Config.APIKey; the amem command takes ANTHROPIC_API_KEY or AMEM_LLM_API_KEY)", amem.ErrInvalid)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("anthropic: %w: no model (Config.Model)", amem.ErrInvalid)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MaxConcurrency <= 0 {
		cfg.MaxConcurrency = DefaultMaxConcurrency
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	switch cfg.StructuredOutput {
	case "":
		cfg.StructuredOutput = StructuredAuto
	case StructuredAuto, StructuredJSON, StructuredTool:
	default:
		return nil, fmt.Errorf("anthropic: %w: StructuredOutput %q: use %q, %q or %q", amem.ErrInvalid, cfg.StructuredOutput, StructuredAuto, StructuredJSON, StructuredTool)
	}

	// The SDK's retry loop is used rather than one of our own: its source
	// (internal/requestconfig, v2.17.0) retries connection errors,
	// attempt timeouts, 408, 409, 429 and every 5xx (529 included),
	// honours Retry-After-Ms, Retry-After in seconds or as an HTTP date,
	// and the x-should-retry header, and otherwise backs off 0.5s*2^n,
	// capped at 8s, less up to 25% random jitter. It stops at once when
	// the caller's ctx is done.
	opts := []option.RequestOption{
		// Configuration comes from Config alone (the amem command
		// resolves the environment into it), so the SDK must not add a
		// credential, base URL or headers of its own from the environment.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithRequestTimeout(cfg.Timeout),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	// Only the Messages service: the SDK's whole client holds every
	// Anthropic API, most of which would be linked for nothing.
	return &Client{
		messages:   sdk.NewMessageService(opts...),
		model:      cfg.Model,
		maxTokens:  cfg.MaxTokens,
		timeout:    cfg.Timeout,
		structured: cfg.StructuredOutput,
		sem:        make(chan struct{}, cfg.MaxConcurrency),
	}, nil
}

// Complete sends req as one Messages call. With req.Schema it asks for
// JSON outputs (output_config.format) with Schema.Schema, and Text is the
// JSON the reply's text holds; or, as Config.StructuredOutput says or when
// the model rejects JSON outputs, it defines a single tool named
// Schema.Name with the schema as input schema and forces the model to call
// it, and Text is the tool's input. Without a Schema, Text is the reply's
// text blocks joined.
//
// req.Temperature is ignored: the API version this SDK speaks
// (2026-10-21) has no temperature parameter.
//
// Every error is an *amem.ProviderError. Failed attempts have already been
// retried when it is returned, so Retryable tells the caller whether a
// later, new call may succeed.
func (c *Client) Complete(ctx context.Context, req amem.LLMRequest) (amem.LLMResponse, error) {
	tool := c.structured == StructuredTool || c.useTool.Load()
	params, err := c.params(req, tool)
	if err != nil {
		return amem.LLMResponse{}, &amem.ProviderError{Provider: provider, Err: err}
	}

	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return amem.LLMResponse{}, &amem.ProviderError{Provider: provider, Err: fmt.Errorf("waiting for a free slot: %w", ctx.Err())}
	}
	defer func() { <-c.sem }()

	var httpRes *http.Response
	msg, err := c.messages.New(ctx, params, option.WithResponseInto(&httpRes))
	if err != nil && req.Schema != nil && !tool && c.structured == StructuredAuto && ctx.Err() == nil && formatRejected(err) {
		c.useTool.Store(true)
		if params, err = c.params(req, true); err != nil {
			return amem.LLMResponse{}, &amem.ProviderError{Provider: provider, Err: err}
		}
		msg, err = c.messages.New(ctx, params, option.WithResponseInto(&httpRes))
	}
	if err != nil {
		return amem.LLMResponse{}, c.providerError(ctx, err, httpRes)
	}

	resp := amem.LLMResponse{
		Text:         text(msg, req.Schema),
		FinishReason: finishReason(msg.StopReason),
		Usage: amem.Usage{
			PromptTokens:     int(msg.Usage.InputTokens),
			CompletionTokens: int(msg.Usage.OutputTokens),
		},
		Model: string(msg.Model),
	}
	if httpRes != nil {
		resp.RequestID = httpRes.Header.Get("request-id")
	}
	return resp, nil
}

// params translates req into the SDK's request, with a schema as JSON
// outputs or, with tool, as a forced tool. Its errors wrap amem.ErrInvalid.
func (c *Client) params(req amem.LLMRequest, tool bool) (sdk.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.maxTokens
	}
	p := sdk.MessageNewParams{
		Model:     sdk.Model(c.model),
		MaxTokens: int64(maxTokens),
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	if len(req.Messages) == 0 {
		return p, fmt.Errorf("%w: no messages", amem.ErrInvalid)
	}
	for i, m := range req.Messages {
		block := sdk.NewTextBlock(m.Content)
		switch m.Role {
		case "user":
			p.Messages = append(p.Messages, sdk.NewUserMessage(block))
		case "assistant":
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(block))
		default:
			return p, fmt.Errorf("%w: message %d has role %q, want user or assistant", amem.ErrInvalid, i, m.Role)
		}
	}
	if s := req.Schema; s != nil {
		if s.Name == "" {
			return p, fmt.Errorf("%w: schema has no name", amem.ErrInvalid)
		}
		var obj map[string]any
		if err := json.Unmarshal(s.Schema, &obj); err != nil {
			return p, fmt.Errorf("%w: schema %q is not a JSON object: %v", amem.ErrInvalid, s.Name, err)
		}
		if !tool {
			// JSON outputs cost the schema alone; a forced tool adds the
			// API's tool-use system prompt (about 300 tokens) to each call.
			p.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: obj}
			return p, nil
		}
		tool := sdk.ToolParam{
			Name: s.Name,
			// Override sends the caller's schema byte for byte: the
			// SDK's typed ToolInputSchemaParam would drop keywords it
			// does not model unless each is copied into ExtraFields.
			InputSchema: param.Override[sdk.ToolInputSchemaParam](s.Schema),
		}
		if s.Description != "" {
			tool.Description = sdk.String(s.Description)
		}
		p.Tools = []sdk.ToolUnionParam{{OfTool: &tool}}
		p.ToolChoice = sdk.ToolChoiceParamOfTool(s.Name)
	}
	return p, nil
}

// text returns the answer in msg: with a schema, the input of the tool
// call that answers it; otherwise, or when the model called no tool (a
// refusal, or a reply cut at max_tokens), the text blocks joined.
func text(msg *sdk.Message, schema *amem.JSONSchema) string {
	if schema != nil {
		for _, b := range msg.Content {
			if b.Type == "tool_use" && b.Name == schema.Name {
				return string(b.Input)
			}
		}
	}
	var sb strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// formatRejected reports whether err is the API saying the model does not
// do JSON outputs: a 400 that names the output format. A 400 for another
// reason is left alone so as not to fall back for nothing.
func formatRejected(err error) bool {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		return false
	}
	text := strings.ToLower(apiErr.RawJSON())
	for _, s := range []string{"output_config", "output_format", "output format", "structured output", "json_schema"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// finishReason normalises a stop_reason. tool_use is a normal stop: with a
// Schema the forced tool call is the answer.
func finishReason(r sdk.StopReason) string {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence, sdk.StopReasonToolUse:
		return amem.FinishStop
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return amem.FinishLength
	case sdk.StopReasonRefusal:
		return amem.FinishRefusal
	default:
		return amem.FinishOther
	}
}

// providerError describes err, returned by the SDK after its retries, as an
// *amem.ProviderError. httpRes is the last response, if any.
func (c *Client) providerError(ctx context.Context, err error, httpRes *http.Response) *amem.ProviderError {
	pe := &amem.ProviderError{Provider: provider, Err: err}
	var apiErr *sdk.Error
	switch {
	case errors.As(err, &apiErr):
		pe.Status = apiErr.StatusCode
		pe.RequestID = apiErr.RequestID
		if r := apiErr.Response; r != nil {
			pe.RetryAfter = retryAfter(r.Header, time.Now())
			if pe.RequestID == "" {
				pe.RequestID = r.Header.Get("request-id")
			}
			pe.Retryable = retryable(r.StatusCode, r.Header)
		} else {
			pe.Retryable = retryable(apiErr.StatusCode, nil)
		}
	case ctx.Err() != nil:
		// The caller gave up: retrying is not the answer.
		pe.Err = fmt.Errorf("call abandoned: %w", err)
	case errors.Is(err, context.DeadlineExceeded):
		// Only the attempt's own timeout expired.
		pe.Err = fmt.Errorf("no response within %v: %w", c.timeout, err)
		pe.Retryable = true
	default:
		// A connection error, or a body cut or garbled in transit:
		// another try may well succeed.
		pe.Retryable = true
		if httpRes != nil {
			pe.RequestID = httpRes.Header.Get("request-id")
		}
	}
	return pe
}

// retryable reports whether a later call may succeed where one that ended
// with status failed, by the rule the SDK's retries follow.
func retryable(status int, h http.Header) bool {
	switch h.Get("x-should-retry") {
	case "true":
		return true
	case "false":
		return false
	}
	return status == http.StatusRequestTimeout ||
		status == http.StatusConflict ||
		status == http.StatusTooManyRequests ||
		status >= http.StatusInternalServerError
}

// retryAfter reads the server's hint of when to try again: retry-after-ms
// (Anthropic's, in milliseconds) first, then Retry-After in seconds or as
// an HTTP date. It returns 0 when there is none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return duration(ms, time.Millisecond)
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return duration(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}

// duration converts n units to a Duration, saturating instead of
// overflowing: the header is outside input, and "1e308" must not come
// back as a negative wait.
func duration(n float64, unit time.Duration) time.Duration {
	d := n * float64(unit)
	switch {
	case math.IsNaN(d) || d <= 0:
		return 0
	case d >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(d)
}
