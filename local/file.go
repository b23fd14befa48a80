package local

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is the optional configuration file, JSON:
//
//	{"db": "...", "embedder": "use-lite", "model_dir": "...",
//	 "curator": "llm", "llm": "openai:gpt-4o-mini", "llm_base_url": "..."}
//
// Settings resolve flags > environment > file > defaults. API keys belong
// in the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY), not in the file.
type File struct {
	DB         string `json:"db,omitempty"`
	Embedder   string `json:"embedder,omitempty"`
	ModelDir   string `json:"model_dir,omitempty"`
	Curator    string `json:"curator,omitempty"`
	LLM        string `json:"llm,omitempty"`
	LLMBaseURL string `json:"llm_base_url,omitempty"`
}

// DefaultFilePath is $AMEM_CONFIG, else config.json in the user's config
// directory ($XDG_CONFIG_HOME/amem, ~/.config/amem on Linux).
func DefaultFilePath() string {
	if p := os.Getenv("AMEM_CONFIG"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "amem", "config.json")
}

// LoadFile reads a configuration file. A missing file at the default path
// is an empty configuration; a missing file that was asked for by name
// (required), unknown keys and bad JSON are errors.
func LoadFile(path string, required bool) (File, error) {
	var f File
	if path == "" {
		return f, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("config file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("config file %s: %w (keys: db, embedder, model_dir, curator, llm, llm_base_url)", path, err)
	}
	return f, nil
}
