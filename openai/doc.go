// Package openai provides amem's chat model (amem.LLM) and embedder
// (amem.Embedder) over any server that speaks OpenAI's
// /v1/chat/completions and /v1/embeddings: OpenAI itself, Azure-style and
// other gateways (OpenRouter, LiteLLM), Ollama, vLLM, the llama.cpp server
// and LM Studio. It is built on the official SDK,
// github.com/openai/openai-go/v3.
//
// # Configuration
//
// Config holds the base URL, key and model, and the robustness settings
// with their defaults: Timeout 60s per attempt, MaxRetries 3,
// MaxConcurrency 4 requests in flight per client, BatchSize 256 inputs per
// embeddings request. The package reads no environment variable, and the
// SDK's OPENAI_BASE_URL and OPENAI_API_KEY never override a Config: the
// amem command resolves its variables into one. The key is optional: local
// servers need none.
//
// OpenAI at api.openai.com:
//
//	llm, err := openai.NewChat(openai.Config{APIKey: os.Getenv("OPENAI_API_KEY"), Model: "gpt-4o-mini"})
//	emb, err := openai.NewEmbedder(openai.Config{APIKey: key, Model: "text-embedding-3-small"}, 1536)
//
// Ollama (ollama pull llama3.2 all-minilm; all-minilm is the 384-dimension
// sentence embedder the A-Mem paper used):
//
//	llm, err := openai.NewChat(openai.Config{BaseURL: "http://localhost:11434/v1", Model: "llama3.2"})
//	emb, err := openai.NewEmbedder(openai.Config{BaseURL: "http://localhost:11434/v1", Model: "all-minilm"}, 384)
//
// Azure OpenAI deployments and other gateways with headers of their own:
// the deployment goes in the base URL's path, the API version in its query
// string (sent with every request), the key in Headers:
//
//	llm, err := openai.NewChat(openai.Config{
//		BaseURL: "https://RESOURCE.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21",
//		Headers: map[string]string{"api-key": key}, Model: "gpt-4o"})
//
// vLLM (vllm serve Qwen/Qwen2.5-7B-Instruct) and the llama.cpp server
// (llama-server -m model.gguf --port 8080; add --embeddings for an
// embedder):
//
//	llm, err := openai.NewChat(openai.Config{BaseURL: "http://localhost:8000/v1", Model: "Qwen/Qwen2.5-7B-Instruct"})
//	llm, err := openai.NewChat(openai.Config{BaseURL: "http://localhost:8080/v1", Model: "local"})
//
// # Structured output
//
// A request with a Schema is sent, under the default StructuredOutput
// "auto", with response_format json_schema and strict: true. A server
// that answers 400 (or 422) naming the response format (OpenAI with a
// model that lacks structured outputs, older vLLM, llama.cpp and Ollama
// builds) gets the same request again in JSON mode (json_object, the
// schema in the system message), and one that rejects that too gets
// plain instructions. The Chat remembers the step down for the rest of
// its life, so each mode is paid for once. A schema that strict mode
// rejects (say, without additionalProperties: false) is named in the
// same way and steps down too. Setting StructuredOutput to a mode uses
// that mode alone.
//
// MaxTokens goes out as max_completion_tokens to api.openai.com (its
// reasoning models reject max_tokens) and as max_tokens elsewhere (most
// other servers know only that).
//
// # Retries, timeouts and errors
//
// Retries are the SDK's own (openai-go v3.102.0, internal/requestconfig),
// checked in its source: it retries connection errors and 408, 409, 429
// and 5xx answers (or whatever an x-should-retry header says), waits what
// retry-after-ms or Retry-After (seconds or an HTTP date) asks for up to
// 2 minutes (longer hints stop the retries and return the error at
// once), and otherwise backs off exponentially from 0.5s, capped at 8s,
// less up to 25% random jitter. Timeout bounds each attempt; an attempt
// that times out is not retried (the SDK stops there), and the error says
// it is retryable so the caller can decide. Bound the whole call, retries
// included, with the context.
//
// Every error is an *amem.ProviderError with Provider "openai": Status is
// the HTTP status (0 for timeouts and network errors), Retryable is true
// for 408, 409, 429, 5xx, timeouts and network errors, RetryAfter is the
// server's hint and RequestID its x-request-id. Err wraps the SDK's
// *openai.Error (with the server's message added) or the transport's
// error; when the caller's context ends, Err wraps ctx.Err() and the error
// is not retryable.
//
// Chat and Embedder are safe for concurrent use; each bounds its own
// requests in flight, and a caller waiting for a slot gives up when its
// context ends.
package openai
