package amem

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// LLM is a chat model behind one small interface: the LLM curator and the
// evaluation's answerer consume it; packages openai and anthropic provide
// it. Implementations must be safe for concurrent use.
type LLM interface {
	Complete(ctx context.Context, req LLMRequest) (LLMResponse, error)
}

// LLMRequest is one chat completion.
type LLMRequest struct {
	System   string
	Messages []Message
	// Schema, when set, asks for a JSON object that validates against it:
	// structured output where the provider supports it, JSON mode or tool
	// use where it doesn't. The answer is still the caller's to validate.
	Schema *JSONSchema
	// MaxTokens bounds the completion (0: the provider's default).
	MaxTokens int
	// Temperature (nil: the provider's default).
	Temperature *float64
}

// Message is one chat turn; Role is "user" or "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// JSONSchema names a JSON Schema (draft 2020-12 subset that OpenAI's
// strict mode and Anthropic's tool input schemas accept).
type JSONSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
}

// Finish reasons, normalised across providers.
const (
	FinishStop    = "stop"    // the model finished
	FinishLength  = "length"  // cut at MaxTokens: the output is truncated
	FinishRefusal = "refusal" // the model refused; Text holds its words
	FinishOther   = "other"
)

// LLMResponse is the model's answer.
type LLMResponse struct {
	// Text is the answer; with a Schema, the JSON object as text (for tool
	// use, the tool input).
	Text         string
	FinishReason string
	Usage        Usage
	Model        string
	RequestID    string
}

// ProviderError is an error from an LLM or embeddings provider.
type ProviderError struct {
	Provider  string // "openai", "anthropic", ...
	Status    int    // HTTP status; 0 for network errors and timeouts
	Retryable bool   // 429, 5xx, network errors, timeouts
	// RetryAfter is the provider's Retry-After hint, if any.
	RetryAfter time.Duration
	RequestID  string
	Err        error
}

func (e *ProviderError) Error() string {
	s := e.Provider
	if e.Status != 0 {
		s += fmt.Sprintf(" status %d", e.Status)
	}
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s + ": " + e.Err.Error()
}

func (e *ProviderError) Unwrap() error { return e.Err }
