package local

import (
	"context"
	"fmt"
	"os"
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

// LLMSpec is the LLM to use: "" for none, else "openai:MODEL" or
// "anthropic:MODEL". The environment variable AMEM_LLM holds the same.
// Keys and base URLs come from each provider's environment variables
// (OPENAI_API_KEY, OPENAI_BASE_URL; ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL;
// amem's AMEM_LLM_API_KEY and AMEM_LLM_BASE_URL win over both); baseURL,
// when not empty, wins over all of them.
func NewLLM(spec, baseURL string) (amem.LLM, error) {
	provider, model, ok := strings.Cut(spec, ":")
	if !ok || model == "" {
		return nil, fmt.Errorf("LLM %q: use openai:MODEL or anthropic:MODEL (for example openai:gpt-4o-mini, openai:llama3.2 with OPENAI_BASE_URL=http://localhost:11434/v1, anthropic:claude-haiku-4-5)", spec)
	}
	switch provider {
	case ProviderOpenAI:
		cfg := openai.ConfigFromEnv()
		cfg.Model = model
		if baseURL != "" {
			cfg.BaseURL = baseURL
		}
		return openai.NewChat(cfg)
	case ProviderAnthropic:
		cfg := anthropic.ConfigFromEnv()
		cfg.Model = model
		if baseURL != "" {
			cfg.BaseURL = baseURL
		}
		return anthropic.New(cfg)
	}
	return nil, fmt.Errorf("LLM provider %q: use %s or %s", provider, ProviderOpenAI, ProviderAnthropic)
}

// newOpenAIEmbedder uses an OpenAI-compatible /embeddings endpoint. The
// model's dimension is learnt from one probe call, since a Memory needs it
// before the first note.
func newOpenAIEmbedder(ctx context.Context, model, baseURL string) (amem.Embedder, error) {
	cfg := openai.ConfigFromEnv()
	cfg.Model = model
	if u := os.Getenv("AMEM_EMBED_BASE_URL"); u != "" {
		// Another server than the LLM's: its key and headers are not sent
		// there, only AMEM_EMBED_API_KEY.
		cfg.BaseURL, cfg.APIKey, cfg.Headers = u, "", nil
	}
	if k := os.Getenv("AMEM_EMBED_API_KEY"); k != "" {
		cfg.APIKey = k
	}
	if baseURL != "" {
		cfg.BaseURL = baseURL
	}
	e, err := openai.NewEmbedder(cfg, 0)
	if err != nil {
		return nil, err
	}
	if _, err := e.Embed(ctx, []string{"dimension probe"}); err != nil {
		return nil, fmt.Errorf("embeddings endpoint %s: %w", model, err)
	}
	return e, nil
}
