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
	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/memory"
)

// app holds what every verb shares: the global flags, the configuration
// they resolve to and the streams.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer

	namespace string
	jsonOut   bool

	// Globals are the global flags amem shares with amem-eval and the
	// configuration they resolve to: Cfg, read from ConfigFile.
	cli.Globals

	claimLease time.Duration // serve: see its flag
	trashFor   time.Duration // serve: see its flag (trash.go)
	// approximateFrom is memory.Options.Indexes.ApproximateFrom (serve: see its
	// flag; 0, the default, elsewhere).
	approximateFrom int
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	err := cli.Execute(ctx, a.rootCmd(), args, stdin, stdout, stderr)
	if err != nil && (a.jsonOut || cli.AsksJSON(args)) {
		return cli.JSONError{Err: err}
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
		// --version says what amem version does, without a verb's
		// setup, through cobra's plain "NAME version VERSION" line: a
		// custom version template would run text/template, which makes
		// the linker keep every exported method of every linked type
		// (about 8 MB; see llmcurator/prompts.go).
		Version: strings.TrimSuffix(strings.TrimPrefix(currentVersion().String(), "amem version "), "\n"),
	}
	a.Setup(root, os.Getenv)
	pf := root.PersistentFlags()
	pf.StringVarP(&a.namespace, "namespace", "n", "", "namespace (default \"default\"; verbs that take an ID find its namespace)")
	pf.BoolVar(&a.jsonOut, "json", false, "print JSON for programs")

	root.AddCommand(
		a.addCmd(), a.searchCmd(), a.showCmd(), a.listCmd(), a.linksCmd(), a.historyCmd(),
		a.restoreCmd(), a.deleteCmd(), a.importCmd(), a.exportCmd(), a.statsCmd(),
		a.enrichCmd(), a.embedCmd(), a.modelCmd(), a.evalCmd(), a.reembedCmd(),
		a.keysCmd(), a.serveCmd(), a.mcpCmd(), a.configCmd(), a.checkCmd(),
		a.versionCmd(), a.namespacesCmd(), a.editCmd(), a.trashCmd(), a.purgeCmd(), a.retentionCmd(),
	)
	return root
}

// open opens the memory cfg describes, logging to stderr.
func (a *app) open(cfg local.Config) (*memory.Memory, error) {
	level := slog.LevelError
	if a.Verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	cfg.Log, cfg.Logger = a.stderr, logger
	// A verb loads the sentence model only if it embeds: list, show or
	// history then start in milliseconds, not the model's 2 s.
	cfg.DeferEmbedder = true
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
func (a *app) resolve(mem *memory.Memory, id string) (amem.Note, error) {
	if a.namespace != "" {
		return mem.Get(a.ctx, a.namespace, id)
	}
	n, err := mem.Lookup(a.ctx, id)
	if errors.Is(err, amem.ErrNotFound) {
		// The store's error names the note already.
		return n, fmt.Errorf("%w (list notes with 'amem list')", err)
	}
	return n, err
}

// withNote opens the memory, finds the note id names (see resolve) and
// runs fn.
func (a *app) withNote(id string, fn func(*memory.Memory, amem.Note) error) error {
	return a.withMemoryOf(a.ns(), id, func(mem *memory.Memory) error {
		n, err := a.resolve(mem, id)
		if err != nil {
			return err
		}
		return fn(mem, n)
	})
}

// withMemory opens the memory for the namespace in use, runs fn and
// closes it. The database must exist (see checkDB).
func (a *app) withMemory(fn func(*memory.Memory) error) error {
	return a.withMemoryOf(a.ns(), "", fn)
}

// withNewMemory is withMemory for the verbs that store notes: it creates
// the database when there is none.
func (a *app) withNewMemory(fn func(*memory.Memory) error) error {
	if err := a.checkDB(false); err != nil {
		return err
	}
	return a.openMemory(a.ns(), "", fn)
}

// withMemoryOf opens the memory, which must exist, with namespace ns's
// embedder (see openMemory).
func (a *app) withMemoryOf(ns, id string, fn func(*memory.Memory) error) error {
	if err := a.checkDB(true); err != nil {
		return err
	}
	return a.openMemory(ns, id, fn)
}

// openMemory opens the memory with namespace ns's embedder (note id's
// namespace's, for an ID given without --namespace; see configFor), runs
// fn and closes it. A namespace's refusal of the embedder is explained.
func (a *app) openMemory(ns, id string, fn func(*memory.Memory) error) error {
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
		fmt.Fprintf(w, "  context:  %s%s\n", n.Context, yours(n.CallerContext))
	}
	if len(n.Keywords) > 0 {
		fmt.Fprintf(w, "  keywords: %s%s\n", strings.Join(n.Keywords, ", "), yours(n.CallerKeywords))
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
	if n.SupersededBy != "" {
		fmt.Fprintf(w, "  superseded by %s (valid until %s)\n", n.SupersededBy, n.ValidUntil.Format(time.RFC3339))
	} else if !n.ValidUntil.IsZero() {
		fmt.Fprintf(w, "  valid until %s\n", n.ValidUntil.Format(time.RFC3339))
	}
}

// yours marks a field the caller wrote, which the curator leaves alone.
func yours(caller bool) string {
	if caller {
		return " (yours)"
	}
	return ""
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

// checkLLM is cli.CheckLLM of the configuration in use.
func (a *app) checkLLM(force bool, warn *slog.Logger) error {
	return cli.CheckLLM(a.ctx, a.Cfg, force, warn)
}
