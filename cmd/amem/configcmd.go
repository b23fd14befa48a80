package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/llmcurator"
	"github.com/amem-dev/amem/local"
)

func (a *app) configCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "print the configuration the flags, environment and config file resolve to (secrets masked)",
		Long: `config prints the settings this invocation would use, after flags, the
environment and the configuration file are resolved (in that order of
precedence), to see why amem talks to the server it does. API keys and
header values are masked. Settings that do not apply (the LLM's when there
is none) are left out.`,
		Example: `  amem config
  AMEM_LLM=openai:llama3.2 OPENAI_BASE_URL=http://localhost:11434/v1 amem config --json`,
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := a.configView()
			if a.jsonOut {
				return a.printJSON(v)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			row := func(name, value string) {
				if value != "" {
					fmt.Fprintf(tw, "%s\t%s\n", name, value)
				}
			}
			row("config file", cmp.Or(v.ConfigFile, "none"))
			row("db", v.DB)
			row("embedder", v.Embedder)
			row("model dir", v.ModelDir)
			if v.EmbedEndpoint != nil {
				row("embeddings base url", cmp.Or(v.EmbedEndpoint.BaseURL, "the provider's default"))
				row("embeddings api key", cmp.Or(v.EmbedEndpoint.APIKey, "none"))
				row("embeddings headers", strings.Join(v.EmbedEndpoint.Headers, ", "))
			}
			row("curator", v.Curator)
			row("llm", cmp.Or(v.LLM, "none"))
			if v.LLMEndpoint != nil {
				row("llm base url", cmp.Or(v.LLMEndpoint.BaseURL, "the provider's default"))
				row("llm api key", cmp.Or(v.LLMEndpoint.APIKey, "none"))
				row("llm headers", strings.Join(v.LLMEndpoint.Headers, ", "))
				row("llm max tokens", cmp.Or(v.LLMMaxTokens, "default"))
				row("connect calls", v.ConnectCalls)
			}
			return tw.Flush()
		},
	}
}

// configShown is the configuration as `amem config` prints it.
type configShown struct {
	ConfigFile    string         `json:"config_file,omitempty"`
	DB            string         `json:"db"`
	Embedder      string         `json:"embedder"`
	ModelDir      string         `json:"model_dir,omitempty"`
	EmbedEndpoint *endpointShown `json:"embeddings,omitempty"`
	Curator       string         `json:"curator"`
	LLM           string         `json:"llm,omitempty"`
	LLMEndpoint   *endpointShown `json:"llm_server,omitempty"`
	LLMMaxTokens  string         `json:"llm_max_tokens,omitempty"`
	ConnectCalls  string         `json:"connect_calls,omitempty"`
}

type endpointShown struct {
	BaseURL string   `json:"base_url,omitempty"`
	APIKey  string   `json:"api_key,omitempty"`
	Headers []string `json:"headers,omitempty"` // Name=masked value
}

func (a *app) configView() configShown {
	c := a.Cfg
	v := configShown{ConfigFile: a.ConfigFile, DB: local.ShowDB(c.Path), Embedder: cmp.Or(c.Embedder, local.EmbedderUSELite), Curator: c.CuratorName(), LLM: c.LLM}
	if v.Embedder == local.EmbedderUSELite {
		v.ModelDir = c.ModelDir
	}
	if strings.HasPrefix(c.Embedder, "openai:") {
		v.EmbedEndpoint = showEndpoint(c.EmbedEndpoint)
	}
	if c.LLM != "" {
		v.LLMEndpoint = showEndpoint(c.LLMEndpoint)
		if c.LLMMaxTokens > 0 {
			v.LLMMaxTokens = strconv.Itoa(c.LLMMaxTokens)
		}
		v.ConnectCalls = string(c.ConnectCalls)
		if v.ConnectCalls == "" {
			v.ConnectCalls = string(llmcurator.OneCall)
		}
	}
	return v
}

func showEndpoint(e local.Endpoint) *endpointShown {
	s := &endpointShown{BaseURL: e.BaseURL, APIKey: mask(e.APIKey)}
	for _, name := range slices.Sorted(maps.Keys(e.Headers)) {
		s.Headers = append(s.Headers, name+"="+mask(e.Headers[name]))
	}
	return s
}

// mask hides a secret but lets a long one be told apart from another by
// its last four characters, as provider consoles do.
func mask(secret string) string {
	switch {
	case secret == "":
		return ""
	case len(secret) < 16:
		return "***"
	}
	return "***" + secret[len(secret)-4:]
}
