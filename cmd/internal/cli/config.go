package cli

// A command's settings are resolved here, once per invocation, into one
// local.Config: flags the user set, then the environment, then the
// configuration file, then defaults. No package below cmd reads the
// environment (cmd/amem's TestNoEnvironmentBelowCmd keeps it so): the
// commands pass their getenv in, and this file is the one place that says
// what each variable does.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/amem-dev/amem/llmcurator"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/openai"
	"github.com/amem-dev/amem/uselite"
)

// FlagSettings are the global flags as typed; "" is a flag not given.
type FlagSettings struct {
	DB, Embedder, ModelDir, Curator, LLM, LLMBaseURL, ConfigPath string
}

// configFile is the optional configuration file, JSON:
//
//	{"db": "...", "embedder": "use-lite", "model_dir": "...",
//	 "curator": "llm", "llm": "openai:gpt-4o-mini", "llm_base_url": "..."}
//
// It has no keys for API keys: those stay in the environment
// (OPENAI_API_KEY, ANTHROPIC_API_KEY, AMEM_LLM_API_KEY), out of a file
// that is easily shared or committed.
type configFile struct {
	DB         string `json:"db,omitempty"`
	Embedder   string `json:"embedder,omitempty"`
	ModelDir   string `json:"model_dir,omitempty"`
	Curator    string `json:"curator,omitempty"`
	LLM        string `json:"llm,omitempty"`
	LLMBaseURL string `json:"llm_base_url,omitempty"`
}

// ResolveConfig builds an invocation's configuration from its flags and
// the environment getenv reads, and returns it with the configuration
// file it read ("" for none).
func ResolveConfig(fl FlagSettings, getenv func(string) string) (local.Config, string, error) {
	cfg, file, _, err := resolveConfig(fl, getenv)
	return cfg, file, err
}

// resolveConfig is ResolveConfig that also says what chose the database
// (see Globals.DBFrom).
func resolveConfig(fl FlagSettings, getenv func(string) string) (cfg local.Config, file, dbFrom string, err error) {
	filePath, f, err := readConfigFile(fl.ConfigPath, getenv("AMEM_CONFIG"))
	if err != nil {
		return local.Config{}, "", "", Usagef("%v", err)
	}
	pick := func(flag, env, file string) string {
		if flag != "" {
			return flag
		}
		if v := getenv(env); v != "" {
			return v
		}
		return file
	}
	cfg = local.Config{
		Path:     pick(fl.DB, "AMEM_DB", f.DB),
		Embedder: pick(fl.Embedder, "AMEM_EMBEDDER", f.Embedder),
		ModelDir: pick(fl.ModelDir, "AMEM_MODEL_DIR", f.ModelDir),
		Curator:  pick(fl.Curator, "AMEM_CURATOR", f.Curator),
		LLM:      pick(fl.LLM, "AMEM_LLM", f.LLM),
	}
	switch {
	case fl.DB != "":
		dbFrom = "--db"
	case getenv("AMEM_DB") != "":
		dbFrom = "AMEM_DB"
	case f.DB != "":
		dbFrom = "the configuration file " + filePath
	default:
		dir, err := dataDir(getenv)
		if err != nil {
			return local.Config{}, "", "", Usagef("no data directory for the database: set AMEM_DB or pass --db (%v)", err)
		}
		cfg.Path, dbFrom = local.DefaultDBPath(dir), "the default"
	}
	if cfg.ModelDir == "" {
		// Without a user cache directory it stays empty: only use-lite
		// needs one, and it says so when asked to load.
		cfg.ModelDir, _ = uselite.DefaultDir()
	}
	cfg.LLMEndpoint = llmEndpoint(cfg.LLM, pick(fl.LLMBaseURL, "AMEM_LLM_BASE_URL", f.LLMBaseURL), getenv)
	cfg.EmbedEndpoint = embedEndpoint(getenv)
	if v := getenv("AMEM_LLM_MAX_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return local.Config{}, "", "", Usagef("AMEM_LLM_MAX_TOKENS=%q: want a positive number of tokens", v)
		}
		cfg.LLMMaxTokens = n
	}
	switch c := llmcurator.ConnectMode(getenv("AMEM_CONNECT_CALLS")); c {
	case "", llmcurator.OneCall, llmcurator.TwoCalls:
		cfg.ConnectCalls = c
	default:
		return local.Config{}, "", "", Usagef("AMEM_CONNECT_CALLS=%q: use %q or %q", c, llmcurator.OneCall, llmcurator.TwoCalls)
	}
	return cfg, filePath, dbFrom, nil
}

// readConfigFile reads the configuration file --config names, else
// $AMEM_CONFIG, else config.json in the user's config directory
// ($XDG_CONFIG_HOME/amem, ~/.config/amem on Linux) when it is there. A
// file named by the flag or the variable must exist; unknown keys and bad
// JSON are errors. It returns the path read, "" for none.
func readConfigFile(flagPath, envPath string) (string, configFile, error) {
	var f configFile
	path, required := flagPath, true
	if path == "" {
		path = envPath
	}
	if path == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", f, nil
		}
		path, required = filepath.Join(dir, "amem", "config.json"), false
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return "", f, nil
	}
	if err != nil {
		return "", f, fmt.Errorf("config file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return "", f, fmt.Errorf("config file %s: %w (keys: db, embedder, model_dir, curator, llm, llm_base_url)", path, err)
	}
	return path, f, nil
}

// dataDir is the user's data directory: $XDG_DATA_HOME, else
// ~/.local/share.
func dataDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// llmEndpoint is the server of the LLM spec names. Its base URL is amem's
// own setting, base (--llm-base-url, $AMEM_LLM_BASE_URL or the file's
// llm_base_url), else the provider's variable (OPENAI_BASE_URL,
// ANTHROPIC_BASE_URL); its key is $AMEM_LLM_API_KEY, else the provider's
// (see openAIEndpoint for OpenAI's).
func llmEndpoint(spec, base string, getenv func(string) string) local.Endpoint {
	var ep local.Endpoint
	switch provider, _, _ := strings.Cut(spec, ":"); provider {
	case local.ProviderOpenAI:
		ep = openAIEndpoint(getenv)
	case local.ProviderAnthropic:
		ep = local.Endpoint{BaseURL: getenv("ANTHROPIC_BASE_URL"), APIKey: getenv("AMEM_LLM_API_KEY")}
		if ep.APIKey == "" {
			ep.APIKey = getenv("ANTHROPIC_API_KEY")
		}
	default:
		return ep // no LLM, or a spec that local.NewLLM will refuse
	}
	if base != "" {
		ep.BaseURL = base
	}
	return ep
}

// openAIEndpoint is the OpenAI-compatible server the environment names:
// $AMEM_LLM_BASE_URL else $OPENAI_BASE_URL, $AMEM_LLM_API_KEY else
// $OPENAI_API_KEY, and the headers of $AMEM_LLM_HEADERS
// ("Name=value,Name=value"). OPENAI_API_KEY is not used when
// AMEM_LLM_BASE_URL is set: an OpenAI key is not sent to some other
// server just because it is in the environment.
func openAIEndpoint(getenv func(string) string) local.Endpoint {
	ep := local.Endpoint{
		BaseURL: getenv("AMEM_LLM_BASE_URL"),
		APIKey:  getenv("AMEM_LLM_API_KEY"),
		Headers: openai.ParseHeaders(getenv("AMEM_LLM_HEADERS")),
	}
	if ep.BaseURL == "" {
		ep.BaseURL = getenv("OPENAI_BASE_URL")
		if ep.APIKey == "" {
			ep.APIKey = getenv("OPENAI_API_KEY")
		}
	}
	return ep
}

// embedEndpoint is the server of an openai:MODEL embedder: the
// environment's OpenAI-compatible one, or $AMEM_EMBED_BASE_URL, which
// then gets neither the LLM's key nor its headers; $AMEM_EMBED_API_KEY is
// its key either way.
func embedEndpoint(getenv func(string) string) local.Endpoint {
	ep := openAIEndpoint(getenv)
	if u := getenv("AMEM_EMBED_BASE_URL"); u != "" {
		ep = local.Endpoint{BaseURL: u}
	}
	if k := getenv("AMEM_EMBED_API_KEY"); k != "" {
		ep.APIKey = k
	}
	return ep
}
