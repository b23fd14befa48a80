package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/local"
)

// app holds what every verb shares: the global flags, the configuration
// they resolve to and the streams.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer

	namespace string
	jsonOut   bool
	verbose   bool
	flags     flagSettings

	// cfg is the configuration the flags, the environment and the
	// configuration file resolve to (see config.go); configFile is the
	// file read, "" for none.
	cfg        local.Config
	configFile string

	claimLease time.Duration // serve: see its flag
	// approximateFrom is amem.Options.ApproximateFrom (serve: see its
	// flag; 0, the default, elsewhere).
	approximateFrom int
	// restatement is amem.Options.RestatementSimilarity (0: its default).
	restatement float64
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil && (a.jsonOut || asksJSON(args)) {
		return jsonError{err}
	}
	return err
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "amem",
		Short: "agentic memory for LLM agents (A-Mem)",
		Long: `amem stores memories as notes with keywords, tags, context, embeddings and
links, following the A-Mem method: each new note is enriched, linked to its
nearest notes, and evolves them. Search returns the best notes plus their
linked notes.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) (err error) {
			a.cfg, a.configFile, err = resolveConfig(a.flags, os.Getenv)
			a.cfg.Options.RestatementSimilarity = a.restatement
			return err
		},
	}
	// --version says what amem version does, without a verb's setup.
	root.SetVersionTemplate(currentVersion().String())
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v (see 'amem %s --help')", err, c.Name())
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.db, "db", "", "database file (default $AMEM_DB, else amem.db in the user's data directory)")
	pf.StringVarP(&a.namespace, "namespace", "n", "", "namespace (default \"default\"; verbs that take an ID find its namespace)")
	pf.BoolVar(&a.jsonOut, "json", false, "print JSON for programs")
	pf.StringVar(&a.flags.embedder, "embedder", "", "embedder: use-lite (default, a sentence model), lexical (no download) or openai:MODEL; env AMEM_EMBEDDER")
	pf.StringVar(&a.flags.modelDir, "model-dir", "", "sentence model directory (default $AMEM_MODEL_DIR, else the user cache)")
	pf.StringVar(&a.flags.curator, "curator", "", "curator: llm (default with --llm), offline (default without) or none; env AMEM_CURATOR")
	pf.StringVar(&a.flags.llm, "llm", "", "LLM as openai:MODEL or anthropic:MODEL (env AMEM_LLM); keys and base URLs from OPENAI_* / ANTHROPIC_*")
	pf.StringVar(&a.flags.llmBaseURL, "llm-base-url", "", "LLM server base URL (overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	pf.StringVar(&a.flags.configPath, "config", "", "configuration file (default $AMEM_CONFIG, else ~/.config/amem/config.json if present)")
	pf.Float64Var(&a.restatement, "restatement-similarity", amem.DefaultRestatementSimilarity, "cosine from which a new note is checked for restating its nearest note (same names, numbers and negation, nearly the same words) and linked to it as a restatement; negative: off")
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "log warnings (dropped curator output, failures) to stderr")

	root.AddCommand(
		a.addCmd(), a.searchCmd(), a.showCmd(), a.listCmd(), a.linksCmd(), a.historyCmd(),
		a.restoreCmd(), a.deleteCmd(), a.importCmd(), a.exportCmd(), a.statsCmd(),
		a.enrichCmd(), a.embedCmd(), a.modelCmd(), a.evalCmd(), a.reembedCmd(),
		a.keysCmd(), a.serveCmd(), a.mcpCmd(), a.configCmd(), a.checkCmd(),
		a.versionCmd(),
	)
	return root
}

// open opens the memory cfg describes, logging to stderr.
func (a *app) open(cfg local.Config) (*amem.Memory, error) {
	level := slog.LevelError
	if a.verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	cfg.Log, cfg.Logger = a.stderr, logger
	return local.Open(a.ctx, cfg)
}

// ns is the namespace to write to or search in.
func (a *app) ns() string {
	if a.namespace == "" {
		return amem.DefaultNamespace
	}
	return a.namespace
}

// resolve finds the namespace of a note ID: the --namespace flag if given
// (and the note must be there), else wherever the note is.
func (a *app) resolve(mem *amem.Memory, id string) (amem.Note, error) {
	if a.namespace != "" {
		return mem.Get(a.ctx, a.namespace, id)
	}
	n, err := mem.Lookup(a.ctx, id)
	if errors.Is(err, amem.ErrNotFound) {
		return n, fmt.Errorf("note %s: %w (list notes with 'amem list')", id, err)
	}
	return n, err
}

// withNote opens the memory, finds the note id names (see resolve) and
// runs fn.
func (a *app) withNote(id string, fn func(*amem.Memory, amem.Note) error) error {
	return a.withMemoryOf(a.ns(), id, func(mem *amem.Memory) error {
		n, err := a.resolve(mem, id)
		if err != nil {
			return err
		}
		return fn(mem, n)
	})
}

// withMemory opens the memory for the namespace in use, runs fn and
// closes it.
func (a *app) withMemory(fn func(*amem.Memory) error) error {
	return a.withMemoryOf(a.ns(), "", fn)
}

// withMemoryOf opens the memory with namespace ns's embedder (note id's
// namespace's, for an ID given without --namespace; see configFor), runs
// fn and closes it. A namespace's refusal of the embedder is explained.
func (a *app) withMemoryOf(ns, id string, fn func(*amem.Memory) error) error {
	cfg, err := a.configFor(ns, id)
	if err != nil {
		return err
	}
	mem, err := a.open(cfg)
	if err != nil {
		return err
	}
	err = a.explainMismatch(fn(mem))
	if cerr := mem.Close(); err == nil {
		err = cerr
	}
	return err
}

func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (a *app) printNote(n amem.Note) {
	w := a.stdout
	fmt.Fprintf(w, "%s  (namespace %s, version %d, %s)\n", n.ID, n.Namespace, n.Version, n.Enrichment.State)
	fmt.Fprintf(w, "  %s\n", n.Content)
	fmt.Fprintf(w, "  time:     %s (stored %s)\n", n.EventTime.Format(time.RFC3339), n.IngestTime.Format(time.RFC3339))
	if n.Context != "" {
		fmt.Fprintf(w, "  context:  %s\n", n.Context)
	}
	if len(n.Keywords) > 0 {
		fmt.Fprintf(w, "  keywords: %s\n", strings.Join(n.Keywords, ", "))
	}
	if len(n.Tags) > 0 {
		fmt.Fprintf(w, "  tags:     %s\n", strings.Join(n.Tags, ", "))
	}
	if len(n.CuratorTags) > 0 {
		fmt.Fprintf(w, "  curated:  %s (tags the curator added; the others are yours)\n", strings.Join(n.CuratorTags, ", "))
	}
	for k, v := range sortedPairs(n.Metadata) {
		fmt.Fprintf(w, "  %s = %s\n", k, v)
	}
	if n.Enrichment.Error != "" {
		fmt.Fprintf(w, "  error:    %s\n", n.Enrichment.Error)
	}
	if len(n.Links) > 0 {
		fmt.Fprintf(w, "  links:    %d (see 'amem links %s')\n", len(n.Links), n.ID)
	}
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// jsonCompact writes v as one JSON document without indentation (for
// large arrays of numbers).
func jsonCompact(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
