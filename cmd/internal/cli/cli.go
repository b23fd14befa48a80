// Package cli is what the amem commands share: cmd/amem, the product, and
// cmd/amem-eval, the evaluation lab. It holds the global flags and the
// configuration they resolve to (with the environment and the
// configuration file), the check of a configured LLM, usage errors, and
// how an error becomes a line (or JSON) on stderr and an exit code.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/memory"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2 // bad flags or input, an embedder the namespace refuses
	ExitNotFound = 3 // a note, a namespace or the database is not there
)

// Main runs a command: run gets the process's arguments and streams and a
// context that SIGINT or SIGTERM cancels; the process then exits with the
// status run's error means (see ExitCode), prog naming it on stderr.
func Main(prog string, run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(ExitCode(prog, err, os.Stderr))
}

// Execute runs root with args and the streams.
func Execute(ctx context.Context, root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	// cobra reports a mistyped verb with a plain error, which would exit 1
	// as if the verb had run and failed.
	if err != nil && strings.HasPrefix(err.Error(), "unknown command ") {
		return Usagef("%s (see '%s --help')", strings.TrimSpace(err.Error()), root.Name())
	}
	return err
}

// ExitCode reports err on stderr, as one line for people ("prog: err") or,
// for a command run with --json (a JSONError), as one JSON object, and
// returns the exit status it means.
func ExitCode(prog string, err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	code, kind := classify(err)
	var je JSONError
	if errors.As(err, &je) {
		writeJSONError(stderr, prog, je.Err, code, kind)
	} else {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	}
	return code
}

// classify is err's exit status and its kind as --json names it.
func classify(err error) (code int, kind string) {
	var ue UsageError
	switch {
	case errors.As(err, &ue):
		return ExitUsage, "usage"
	case errors.Is(err, amem.ErrInvalid):
		return ExitUsage, "invalid"
	case errors.Is(err, amem.ErrNotFound):
		return ExitNotFound, "not_found"
	}
	return ExitError, "error"
}

// UsageError is a mistake in how the command was typed.
type UsageError struct{ msg string }

func (e UsageError) Error() string { return e.msg }

// Usagef is a UsageError with a message formatted as fmt.Sprintf does.
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Sprintf(format, args...)}
}

// ExactArgs is cobra.ExactArgs with a message that says what to type.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		if n == 0 {
			return Usagef("%s takes no arguments, got %q", cmd.Name(), args)
		}
		return Usagef("%s needs %s; got %d argument(s) (usage: %s %s)", cmd.Name(), what, len(args), cmd.Root().Name(), cmd.Use)
	}
}

// Globals are the global flags both commands take, as typed, and the
// configuration they resolve to.
type Globals struct {
	Flags   FlagSettings
	Verbose bool
	// Restatement is memory.Options.Enrich.RestatementSimilarity (0: its default).
	Restatement float64

	// Cfg is the configuration the flags, the environment and the
	// configuration file resolve to (see ResolveConfig); ConfigFile is
	// the file read, "" for none.
	Cfg        local.Config
	ConfigFile string
	// DBFrom says what chose Cfg.Path, in the words a message to the
	// user needs: "--db", "AMEM_DB", "the configuration file FILE" or
	// "the default".
	DBFrom string
}

// Setup makes root a command of the family: its errors are returned, not
// printed with the usage; a mistyped flag is a usage error; and the global
// flags are root's persistent flags, which resolve, with the environment
// getenv reads and the configuration file, into g.Cfg before any verb
// runs.
func (g *Globals) Setup(root *cobra.Command, getenv func(string) string) {
	root.SilenceUsage, root.SilenceErrors = true, true
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) (err error) {
		g.Cfg, g.ConfigFile, g.DBFrom, err = resolveConfig(g.Flags, getenv)
		g.Cfg.Options.Enrich.RestatementSimilarity = g.Restatement
		return err
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		help := root.Name() + " " + c.Name()
		if c == root {
			help = root.Name()
		}
		return Usagef("%v (see '%s --help')", err, help)
	})
	pf := root.PersistentFlags()
	pf.StringVar(&g.Flags.DB, "db", "", "database file (default $AMEM_DB, else amem.db in the user's data directory)")
	pf.StringVar(&g.Flags.Embedder, "embedder", "", "embedder: use-lite (default, a sentence model), lexical (no download) or openai:MODEL; env AMEM_EMBEDDER")
	pf.StringVar(&g.Flags.ModelDir, "model-dir", "", "sentence model directory (default $AMEM_MODEL_DIR, else the user cache)")
	pf.StringVar(&g.Flags.Curator, "curator", "", "curator: llm (default with --llm), offline (default without) or none; env AMEM_CURATOR")
	pf.StringVar(&g.Flags.LLM, "llm", "", "LLM as openai:MODEL or anthropic:MODEL (env AMEM_LLM); keys and base URLs from OPENAI_* / ANTHROPIC_*")
	pf.StringVar(&g.Flags.LLMBaseURL, "llm-base-url", "", "LLM server base URL (overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	pf.StringVar(&g.Flags.ConfigPath, "config", "", "configuration file (default $AMEM_CONFIG, else ~/.config/amem/config.json if present)")
	pf.Float64Var(&g.Restatement, "restatement-similarity", memory.DefaultRestatementSimilarity, "cosine from which a new note is checked for restating its nearest note (same names, numbers and negation, nearly the same words) and linked to it as a restatement; negative: off")
	pf.BoolVarP(&g.Verbose, "verbose", "v", false, "log warnings (dropped curator output, failures) to stderr")
}
