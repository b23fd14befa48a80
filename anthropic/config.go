package anthropic

import (
	"net/http"
	"time"
)

// Defaults for the zero values of Config's fields.
const (
	DefaultBaseURL        = "https://api.anthropic.com"
	DefaultTimeout        = 60 * time.Second
	DefaultMaxRetries     = 3
	DefaultMaxConcurrency = 4
	// DefaultMaxTokens is used when neither the request nor Config bounds
	// the completion: the Messages API requires max_tokens on every call.
	DefaultMaxTokens = 1024
)

// Config configures a Client. The zero value of each field selects the
// documented default; APIKey and Model are required.
type Config struct {
	// BaseURL is the API's root, without /v1 (default DefaultBaseURL). Point
	// it at a proxy or a test server.
	BaseURL string
	// APIKey authenticates every request. Required.
	APIKey string
	// Model names the Claude model, e.g. "claude-sonnet-4-5". Required.
	Model string
	// Timeout bounds each HTTP attempt, not the whole call with its
	// retries: bound that with the ctx passed to Complete (default
	// DefaultTimeout, 60s).
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt is retried on 408,
	// 409, 429, 5xx (529 overloaded included), network errors and attempt
	// timeouts (0: DefaultMaxRetries, 3; negative: no retries).
	MaxRetries int
	// MaxConcurrency bounds the calls in flight on one Client, retries and
	// their backoff included, so that a burst of goroutines queues here
	// instead of tripping the account's rate limit (<= 0:
	// DefaultMaxConcurrency, 4).
	MaxConcurrency int
	// MaxTokens bounds a completion whose LLMRequest.MaxTokens is 0
	// (default DefaultMaxTokens, 1024).
	MaxTokens int
	// HTTPClient sends the requests (nil: http.DefaultClient). Its own
	// Timeout, if any, also applies to each attempt.
	HTTPClient *http.Client
	// StructuredOutput is how a request's schema is enforced (default
	// StructuredAuto).
	StructuredOutput StructuredOutput
}

// StructuredOutput says how a schema is asked for.
type StructuredOutput string

const (
	// StructuredAuto asks for JSON outputs and, the first time the model
	// rejects them (models older than Claude's 4.5 generation do), falls
	// back to a forced tool for the life of the Client.
	// The zero value means StructuredAuto.
	StructuredAuto StructuredOutput = "auto"
	// StructuredJSON asks for JSON outputs (output_config.format) only.
	StructuredJSON StructuredOutput = "json"
	// StructuredTool forces a tool whose input schema is the schema. Each
	// call then also pays the API's tool-use system prompt.
	StructuredTool StructuredOutput = "tool"
)
