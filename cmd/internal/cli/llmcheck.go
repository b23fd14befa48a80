package cli

// A configured LLM that cannot be called is found when a command that
// calls it starts, not after the command has stored notes whose
// enrichment then failed one by one. Commands that never call it (search,
// list, show...) pay nothing: they do not check.

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/amem-dev/amem/anthropic"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/openai"
)

// LLMProbeTimeout bounds the reachability probe: a connection to a
// server that is up takes milliseconds, even across the world; one that
// takes seconds is as good as down for a command waiting on it.
const LLMProbeTimeout = 3 * time.Second

// CheckLLM checks, when cfg's curator is the LLM (or always, with force),
// that the LLM can be called: a provider's public API needs a key, and
// the server must accept a connection. Either failure is a usage error
// (exit 2) that says what to set. With warn set (serve, mcp) an
// unreachable server is logged instead: a long-running server may start
// before its model server does, and enriches the notes later.
func CheckLLM(ctx context.Context, cfg local.Config, force bool, warn *slog.Logger) error {
	if cfg.LLM == "" || (!force && cfg.CuratorName() != local.CuratorLLM) {
		return nil
	}
	provider, _, _ := strings.Cut(cfg.LLM, ":")
	var base, keyVars, baseVars string
	switch provider {
	case local.ProviderOpenAI:
		base, keyVars, baseVars = openai.DefaultBaseURL, "OPENAI_API_KEY or AMEM_LLM_API_KEY", "OPENAI_BASE_URL, AMEM_LLM_BASE_URL or --llm-base-url"
	case local.ProviderAnthropic:
		base, keyVars, baseVars = anthropic.DefaultBaseURL, "ANTHROPIC_API_KEY or AMEM_LLM_API_KEY", "ANTHROPIC_BASE_URL, AMEM_LLM_BASE_URL or --llm-base-url"
	default:
		return nil // local.NewLLM refuses the spec, saying what to write
	}
	ep := cfg.LLMEndpoint
	public := ep.BaseURL == ""
	if !public {
		base = ep.BaseURL
	}
	// A server of one's own (Ollama, vLLM) may need no key, or take it in
	// a header (Azure's api-key); the providers' own APIs always need one.
	if ep.APIKey == "" && (public || provider == local.ProviderAnthropic) && len(ep.Headers) == 0 {
		return Usagef("the LLM %s has no API key: set %s (or, for a server that needs none, such as Ollama, set %s)", cfg.LLM, keyVars, baseVars)
	}
	if err := probe(ctx, base); err != nil {
		if warn != nil {
			warn.Warn("the LLM server cannot be reached; notes will wait for it", "llm", cfg.LLM, "url", base, "err", err)
			return nil
		}
		return Usagef("the LLM %s cannot be reached at %s (%v): start its server, or set %s to where it runs", cfg.LLM, base, err, baseVars)
	}
	return nil
}

// probe opens (and closes) a TCP connection to the host of base: enough
// to tell a server that is there from a wrong address, a stopped server
// or no network, without a request that a provider would bill or log.
func probe(ctx context.Context, base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", base)
	}
	// Through a proxy (HTTPS_PROXY...), the proxy is what must answer.
	if p, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err == nil && p != nil {
		u = p
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, LLMProbeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return err
	}
	return conn.Close()
}
