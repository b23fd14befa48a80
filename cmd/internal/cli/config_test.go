package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/amem-dev/amem/llmcurator"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/uselite"
)

// fakeEnv is an environment of its own, so that these tests neither see
// the developer's OPENAI_API_KEY nor depend on the order they run in.
type fakeEnv map[string]string

func (e fakeEnv) get(name string) string { return e[name] }

// resolveWith resolves flags over env with the configuration file file
// (JSON; "" for no file at all).
func resolveWith(t *testing.T, fl FlagSettings, env fakeEnv, file string) local.Config {
	t.Helper()
	cfg, _, err := resolveWithErr(t, fl, env, file)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func resolveWithErr(t *testing.T, fl FlagSettings, env fakeEnv, file string) (local.Config, string, error) {
	t.Helper()
	// Keep the user's own ~/.config/amem/config.json out of it.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if file != "" {
		fl.ConfigPath = filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(fl.ConfigPath, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ResolveConfig(fl, env.get)
}

// with is env with name set to value.
func (e fakeEnv) with(name, value string) fakeEnv {
	c := fakeEnv{name: value}
	for k, v := range e {
		if k != name {
			c[k] = v
		}
	}
	return c
}

// Every setting with a flag, a variable and a file key resolves flag >
// environment > file > default.
func TestResolvePrecedence(t *testing.T) {
	file := `{"db": "file.db", "embedder": "lexical", "model_dir": "/file/model", "curator": "none",
		"llm": "openai:file-model", "llm_base_url": "http://file/v1"}`
	env := fakeEnv{
		"AMEM_DB": "env.db", "AMEM_EMBEDDER": "openai:env-emb", "AMEM_MODEL_DIR": "/env/model",
		"AMEM_CURATOR": "offline", "AMEM_LLM": "openai:env-model", "AMEM_LLM_BASE_URL": "http://env/v1",
	}
	flags := FlagSettings{
		DB: "flag.db", Embedder: "use-lite", ModelDir: "/flag/model", Curator: "llm",
		LLM: "anthropic:flag-model", LLMBaseURL: "http://flag",
	}
	type got struct{ db, embedder, modelDir, curator, llm, base string }
	view := func(c local.Config) got {
		return got{c.Path, c.Embedder, c.ModelDir, c.Curator, c.LLM, c.LLMEndpoint.BaseURL}
	}
	if g, want := view(resolveWith(t, FlagSettings{}, nil, file)), (got{"file.db", "lexical", "/file/model", "none", "openai:file-model", "http://file/v1"}); g != want {
		t.Errorf("file: %+v, want %+v", g, want)
	}
	if g, want := view(resolveWith(t, FlagSettings{}, env, file)), (got{"env.db", "openai:env-emb", "/env/model", "offline", "openai:env-model", "http://env/v1"}); g != want {
		t.Errorf("environment over file: %+v, want %+v", g, want)
	}
	if g, want := view(resolveWith(t, flags, env, file)), (got{"flag.db", "use-lite", "/flag/model", "llm", "anthropic:flag-model", "http://flag"}); g != want {
		t.Errorf("flags over environment: %+v, want %+v", g, want)
	}
}

func TestResolveDefaults(t *testing.T) {
	cfg := resolveWith(t, FlagSettings{}, fakeEnv{"XDG_DATA_HOME": "/data"}, "")
	want, _ := uselite.DefaultDir()
	if cfg.Path != filepath.FromSlash("/data/amem/amem.db") || cfg.ModelDir != want || cfg.Embedder != "" || cfg.CuratorName() != local.CuratorOffline || cfg.LLM != "" {
		t.Errorf("defaults: %+v", cfg)
	}
	t.Setenv("HOME", "/home/u")
	if cfg := resolveWith(t, FlagSettings{}, nil, ""); cfg.Path != filepath.FromSlash("/home/u/.local/share/amem/amem.db") {
		t.Errorf("default db without XDG_DATA_HOME: %s", cfg.Path)
	}
}

// The LLM's server and key: amem's variables over the provider's, and an
// OpenAI key that does not follow AMEM_LLM_BASE_URL elsewhere.
func TestResolveLLMEndpoint(t *testing.T) {
	openaiEnv := fakeEnv{"AMEM_LLM": "openai:m", "OPENAI_BASE_URL": "http://openai/v1", "OPENAI_API_KEY": "sk-openai"}
	anthropicEnv := fakeEnv{"AMEM_LLM": "anthropic:m", "ANTHROPIC_BASE_URL": "http://anthropic", "ANTHROPIC_API_KEY": "sk-ant"}
	for _, tc := range []struct {
		name  string
		flags FlagSettings
		env   fakeEnv
		file  string
		want  local.Endpoint
	}{
		{"openai", FlagSettings{}, openaiEnv, "", local.Endpoint{BaseURL: "http://openai/v1", APIKey: "sk-openai"}},
		{"openai, amem's key", FlagSettings{}, openaiEnv.with("AMEM_LLM_API_KEY", "sk-amem"), "", local.Endpoint{BaseURL: "http://openai/v1", APIKey: "sk-amem"}},
		{"openai, amem's server gets no OpenAI key", FlagSettings{}, openaiEnv.with("AMEM_LLM_BASE_URL", "http://local/v1"), "", local.Endpoint{BaseURL: "http://local/v1"}},
		{"openai, gateway headers", FlagSettings{}, openaiEnv.with("AMEM_LLM_HEADERS", "api-key=k1, X-Title=amem"), "",
			local.Endpoint{BaseURL: "http://openai/v1", APIKey: "sk-openai", Headers: map[string]string{"api-key": "k1", "X-Title": "amem"}}},
		{"openai, --llm-base-url", FlagSettings{LLMBaseURL: "http://flag/v1"}, openaiEnv, "", local.Endpoint{BaseURL: "http://flag/v1", APIKey: "sk-openai"}},
		{"openai, the file's llm_base_url over OPENAI_BASE_URL", FlagSettings{}, openaiEnv, `{"llm_base_url": "http://file/v1"}`, local.Endpoint{BaseURL: "http://file/v1", APIKey: "sk-openai"}},
		{"openai, AMEM_LLM_BASE_URL over the file's", FlagSettings{}, openaiEnv.with("AMEM_LLM_BASE_URL", "http://env/v1"), `{"llm_base_url": "http://file/v1"}`, local.Endpoint{BaseURL: "http://env/v1"}},
		{"anthropic", FlagSettings{}, anthropicEnv, "", local.Endpoint{BaseURL: "http://anthropic", APIKey: "sk-ant"}},
		{"anthropic, amem's variables win", FlagSettings{}, anthropicEnv.with("AMEM_LLM_API_KEY", "sk-amem").with("AMEM_LLM_BASE_URL", "http://amem").with("AMEM_LLM_HEADERS", "a=b"), "",
			local.Endpoint{BaseURL: "http://amem", APIKey: "sk-amem"}},
		{"anthropic ignores OpenAI's", FlagSettings{}, anthropicEnv.with("OPENAI_API_KEY", "sk-openai"), "", local.Endpoint{BaseURL: "http://anthropic", APIKey: "sk-ant"}},
		{"no LLM", FlagSettings{}, fakeEnv{"OPENAI_API_KEY": "sk-openai"}, "", local.Endpoint{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolveWith(t, tc.flags, tc.env, tc.file).LLMEndpoint; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%+v, want %+v", got, tc.want)
			}
		})
	}
}

// An embeddings server of its own (AMEM_EMBED_BASE_URL) gets only
// AMEM_EMBED_API_KEY: never the LLM's key or gateway headers.
func TestResolveEmbedEndpoint(t *testing.T) {
	env := fakeEnv{"OPENAI_BASE_URL": "http://llm/v1", "OPENAI_API_KEY": "sk-llm", "AMEM_LLM_HEADERS": "api-key=llm-secret"}
	for _, tc := range []struct {
		name string
		env  fakeEnv
		want local.Endpoint
	}{
		{"the LLM's server", env, local.Endpoint{BaseURL: "http://llm/v1", APIKey: "sk-llm", Headers: map[string]string{"api-key": "llm-secret"}}},
		{"the LLM's server, a key of its own", env.with("AMEM_EMBED_API_KEY", "sk-emb"), local.Endpoint{BaseURL: "http://llm/v1", APIKey: "sk-emb", Headers: map[string]string{"api-key": "llm-secret"}}},
		{"a server of its own", env.with("AMEM_EMBED_BASE_URL", "http://emb/v1"), local.Endpoint{BaseURL: "http://emb/v1"}},
		{"a server and key of its own", env.with("AMEM_EMBED_BASE_URL", "http://emb/v1").with("AMEM_EMBED_API_KEY", "sk-emb"), local.Endpoint{BaseURL: "http://emb/v1", APIKey: "sk-emb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolveWith(t, FlagSettings{}, tc.env, "").EmbedEndpoint; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestResolveCuratorSettings(t *testing.T) {
	cfg := resolveWith(t, FlagSettings{}, fakeEnv{"AMEM_CONNECT_CALLS": "two", "AMEM_LLM_MAX_TOKENS": "2000"}, "")
	if cfg.ConnectCalls != llmcurator.TwoCalls || cfg.LLMMaxTokens != 2000 {
		t.Errorf("connect calls %q, max tokens %d", cfg.ConnectCalls, cfg.LLMMaxTokens)
	}
	for _, tc := range []struct{ name, value, want string }{
		{"AMEM_CONNECT_CALLS", "three", `"two"`},
		{"AMEM_LLM_MAX_TOKENS", "lots", "AMEM_LLM_MAX_TOKENS"},
		{"AMEM_LLM_MAX_TOKENS", "0", "positive"},
	} {
		_, _, err := resolveWithErr(t, FlagSettings{}, fakeEnv{tc.name: tc.value}, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode("amem", err, &strings.Builder{}) != ExitUsage {
			t.Errorf("%s=%s: %v", tc.name, tc.value, err)
		}
	}
}

func TestResolveConfigFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	// A file asked for by name must be there; the default one need not.
	if _, _, err := ResolveConfig(FlagSettings{ConfigPath: missing}, fakeEnv{}.get); err == nil {
		t.Error("--config naming a missing file: no error")
	}
	if _, _, err := ResolveConfig(FlagSettings{}, fakeEnv{"AMEM_CONFIG": missing}.get); err == nil {
		t.Error("AMEM_CONFIG naming a missing file: no error")
	}
	t.Setenv("XDG_CONFIG_HOME", dir)
	if _, file, err := ResolveConfig(FlagSettings{}, fakeEnv{}.get); err != nil || file != "" {
		t.Errorf("no default file: %q, %v", file, err)
	}
	def := filepath.Join(dir, "amem", "config.json")
	os.MkdirAll(filepath.Dir(def), 0o755)
	os.WriteFile(def, []byte(`{"db": "default-file.db"}`), 0o644)
	if cfg, file, err := ResolveConfig(FlagSettings{}, fakeEnv{}.get); err != nil || file != def || cfg.Path != "default-file.db" {
		t.Errorf("default file: db %q from %q, %v", cfg.Path, file, err)
	}
	// --config wins over AMEM_CONFIG, which wins over the default file.
	named := filepath.Join(dir, "named.json")
	os.WriteFile(named, []byte(`{"db": "named.db"}`), 0o644)
	if cfg, _, _ := ResolveConfig(FlagSettings{}, fakeEnv{"AMEM_CONFIG": named}.get); cfg.Path != "named.db" {
		t.Errorf("AMEM_CONFIG: db %q", cfg.Path)
	}
	if cfg, _, _ := ResolveConfig(FlagSettings{ConfigPath: def}, fakeEnv{"AMEM_CONFIG": named}.get); cfg.Path != "default-file.db" {
		t.Errorf("--config: db %q", cfg.Path)
	}
	// Keys are refused in the file: they belong in the environment.
	os.WriteFile(named, []byte(`{"llm_api_key": "sk-secret"}`), 0o644)
	if _, _, err := ResolveConfig(FlagSettings{ConfigPath: named}, fakeEnv{}.get); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("an API key in the file: %v", err)
	}
}

// What chose the database is named as a message to the user names it,
// along the same precedence.
func TestResolveDBFrom(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	file := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(file, []byte(`{"db": "file.db"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	data := fakeEnv{"XDG_DATA_HOME": "/data"}
	for _, tc := range []struct {
		fl   FlagSettings
		env  fakeEnv
		want string
	}{
		{FlagSettings{DB: "flag.db", ConfigPath: file}, data.with("AMEM_DB", "env.db"), "--db"},
		{FlagSettings{ConfigPath: file}, data.with("AMEM_DB", "env.db"), "AMEM_DB"},
		{FlagSettings{ConfigPath: file}, data, "the configuration file " + file},
		{FlagSettings{}, data, "the default"},
	} {
		if _, _, from, err := resolveConfig(tc.fl, tc.env.get); err != nil || from != tc.want {
			t.Errorf("%+v %v: %q, %v; want %q", tc.fl, tc.env, from, err, tc.want)
		}
	}
}
