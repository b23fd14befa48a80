package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
)

// Defaults for the zero fields of Config.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultTimeout        = 60 * time.Second
	DefaultMaxRetries     = 3
	DefaultMaxConcurrency = 4
	DefaultBatchSize      = 256
)

// StructuredOutput modes: how Chat asks for JSON when a request has a
// Schema.
const (
	// StructuredAuto tries StructuredJSONSchema, then StructuredJSONObject,
	// then StructuredNone, moving down (for the rest of the client's life)
	// when the server rejects a mode with a 400 that names the format.
	StructuredAuto = "auto"
	// StructuredJSONSchema sends response_format {"type":"json_schema"}
	// with strict: true (OpenAI, vLLM, recent llama.cpp and Ollama).
	StructuredJSONSchema = "json_schema"
	// StructuredJSONObject sends response_format {"type":"json_object"}
	// (JSON mode) and puts the schema in the system message.
	StructuredJSONObject = "json_object"
	// StructuredNone sends no response_format; the schema and the
	// instruction to answer with one JSON object go in the system message.
	StructuredNone = "none"
)

// ErrInvalidConfig is returned by NewChat and NewEmbedder when a Config
// cannot work (no model, an unknown StructuredOutput, a bad base URL).
var ErrInvalidConfig = errors.New("openai: invalid config")

// Config configures a Chat or an Embedder. The zero value of every field
// but Model means its documented default.
type Config struct {
	// BaseURL is the API root, the part before /chat/completions and
	// /embeddings. Default DefaultBaseURL; Ollama is
	// http://localhost:11434/v1, vLLM http://localhost:8000/v1.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>". Optional: local
	// servers need none, and an empty key sends no Authorization header
	// (even when OPENAI_API_KEY is set: this package reads no environment;
	// the amem command resolves its variables into a Config).
	APIKey string
	// Model is the model name sent with every request. Required.
	Model string
	// Timeout bounds each HTTP attempt, not the retries together (bound
	// those with the context). Default DefaultTimeout (60s).
	Timeout time.Duration
	// MaxRetries is how many times a request is retried after a 408, 409,
	// 429, 5xx or network error. Default DefaultMaxRetries (3); negative
	// means no retries.
	MaxRetries int
	// MaxConcurrency bounds the requests one Chat or Embedder has in
	// flight; callers beyond it wait (or give up when their context ends).
	// Default DefaultMaxConcurrency (4).
	MaxConcurrency int
	// StructuredOutput is one of StructuredAuto (default),
	// StructuredJSONSchema, StructuredJSONObject, StructuredNone. Only
	// StructuredAuto falls back; the others are used as they are.
	StructuredOutput string
	// BatchSize is the most inputs an Embedder sends in one request.
	// Default DefaultBatchSize (256); Chat ignores it.
	BatchSize int
	// Headers are sent with every request, for gateways that want their
	// own: Azure's api-key, OpenRouter's X-Title. A query string in
	// BaseURL (Azure's ?api-version=...) is sent with every request too.
	Headers map[string]string
	// HTTPClient sends the requests. Default: the SDK's own, a clone of
	// http.DefaultTransport that gives up on a server that sends no
	// response headers for 10 minutes.
	HTTPClient *http.Client
}

// ParseHeaders reads "Name=value" pairs separated by commas, such as
// "api-key=...,X-Title=amem" (the amem command's AMEM_LLM_HEADERS); pairs
// without a name or an "=" are skipped. It returns nil for no pairs.
func ParseHeaders(s string) map[string]string {
	var h map[string]string
	for _, pair := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			continue
		}
		if h == nil {
			h = map[string]string{}
		}
		h[name] = strings.TrimSpace(value)
	}
	return h
}

// withDefaults fills the zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Model == "" {
		return c, fmt.Errorf("%w: no model", ErrInvalidConfig)
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("%w: base URL %q is not an http(s) URL", ErrInvalidConfig, c.BaseURL)
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.MaxConcurrency <= 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	switch c.StructuredOutput {
	case "":
		c.StructuredOutput = StructuredAuto
	case StructuredAuto, StructuredJSONSchema, StructuredJSONObject, StructuredNone:
	default:
		return c, fmt.Errorf("%w: unknown StructuredOutput %q", ErrInvalidConfig, c.StructuredOutput)
	}
	return c, nil
}

// options are the SDK's request options for c. Retries, Retry-After and
// the per-attempt timeout are the SDK's (see doc.go for what it does and
// why it is enough). Each type builds only the service it calls
// (sdk.NewChatCompletionService, sdk.NewEmbeddingService): the SDK's
// whole client holds every OpenAI API, and linking it made about a
// third of the amem binary.
func (c Config) options() []option.RequestOption {
	// The SDK joins paths onto the base URL, so its query string goes
	// with every request instead (withDefaults checked that it parses).
	base, _ := url.Parse(c.BaseURL)
	query := base.Query()
	base.RawQuery = ""
	opts := []option.RequestOption{
		option.WithBaseURL(base.String()),
		// Always set, even empty: otherwise the SDK would read
		// OPENAI_API_KEY from the environment behind the caller's back.
		option.WithAPIKey(c.APIKey),
		option.WithMaxRetries(c.MaxRetries),
		option.WithRequestTimeout(c.Timeout),
	}
	for name, values := range query {
		for _, v := range values {
			opts = append(opts, option.WithQueryAdd(name, v))
		}
	}
	for name, v := range c.Headers {
		opts = append(opts, option.WithHeader(name, v))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	return opts
}

// semaphore bounds the requests in flight.
type semaphore chan struct{}

// acquire takes a slot or gives up when ctx ends.
func (s semaphore) acquire(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s semaphore) release() { <-s }
