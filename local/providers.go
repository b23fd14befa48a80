package local

import (
	"context"
	"fmt"
	"strings"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/anthropic"
	"github.com/amem-dev/amem/openai"
)

// LLM providers accepted in an LLM spec "PROVIDER:MODEL".
const (
	ProviderOpenAI    = "openai"    // any OpenAI-compatible server
	ProviderAnthropic = "anthropic" // Anthropic Messages
)

// Endpoint is a model server and how to reach it. Zero fields mean the
// provider's defaults: its public API, no key, no extra headers.
type Endpoint struct {
	// BaseURL is the API root (an OpenAI-compatible server's ends in /v1);
	// a query string in it goes with every request.
	BaseURL string
	// APIKey authenticates each request.
	APIKey string
	// Headers go with every request to an OpenAI-compatible server
	// (Azure's api-key, OpenRouter's X-Title); Anthropic's ignores them.
	Headers map[string]string
}

// NewLLM returns the LLM spec names, "openai:MODEL" or "anthropic:MODEL",
// at ep.
func NewLLM(spec string, ep Endpoint) (amem.LLM, error) {
	provider, model, ok := strings.Cut(spec, ":")
	if !ok || model == "" {
		return nil, fmt.Errorf("LLM %q: use openai:MODEL or anthropic:MODEL (for example openai:gpt-4o-mini, openai:llama3.2 with OPENAI_BASE_URL=http://localhost:11434/v1, anthropic:claude-haiku-4-5)", spec)
	}
	switch provider {
	case ProviderOpenAI:
		return openai.NewChat(openai.Config{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Headers: ep.Headers, Model: model})
	case ProviderAnthropic:
		return anthropic.New(anthropic.Config{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Model: model})
	}
	return nil, fmt.Errorf("LLM provider %q: use %s or %s", provider, ProviderOpenAI, ProviderAnthropic)
}

// newOpenAIEmbedder uses an OpenAI-compatible /embeddings endpoint. The
// model's dimension is learnt from one probe call, since a Memory needs it
// before the first note.
func newOpenAIEmbedder(ctx context.Context, model string, ep Endpoint) (amem.Embedder, error) {
	e, err := openai.NewEmbedder(openai.Config{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Headers: ep.Headers, Model: model}, 0)
	if err != nil {
		return nil, err
	}
	if _, err := e.Embed(ctx, []string{"dimension probe"}); err != nil {
		return nil, fmt.Errorf("embeddings endpoint %s: %w", model, err)
	}
	return e, nil
}
