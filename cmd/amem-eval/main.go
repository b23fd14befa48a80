// Command amem-eval is amem's evaluation lab: the suite that scores search
// on several shapes of memory (bare amem-eval, amem-eval suite), the
// LoCoMo benchmark (amem-eval locomo) and the supersession and
// restatement rules on labelled pairs (amem-eval supersede). It is a command of its own so that
// the amem binary does not link package eval and its plotting libraries;
// it shares amem's global flags, configuration and exit codes through
// cmd/internal/cli. Build it with 'make lab'.
package main

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/local"
)

func main() { cli.Main("amem-eval", run) }

// app holds what every verb shares: the global flags, the configuration
// they resolve to and the streams.
type app struct {
	ctx            context.Context
	stdout, stderr io.Writer
	cli.Globals
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{ctx: ctx, stdout: stdout, stderr: stderr}
	return cli.Execute(ctx, a.rootCmd(), args, stdin, stdout, stderr)
}

// rootCmd is amem-eval: bare, it runs the suite, with the suite's flags.
func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "amem-eval",
		Short: "measure search: the suite of several memory shapes (default), or LoCoMo; the curator; and the supersession rule",
		Long:  "amem-eval runs the evaluation suite (amem-eval suite: every set, every mode, one table), the LoCoMo benchmark (amem-eval locomo), the curator set (amem-eval curator) or the supersession and restatement rules on labelled pairs (amem-eval supersede), and compares two suite runs query by query (amem-eval paired).",
	}
	a.Setup(root, os.Getenv)
	root.CompletionOptions.DisableDefaultCmd = true
	suite := a.suiteCmd()
	root.AddCommand(a.locomoCmd(), a.supersedeCmd(), suite, a.curatorCmd(), a.pairedCmd())
	root.Flags().AddFlagSet(suite.Flags())
	root.Args, root.PreRun, root.RunE = suite.Args, suite.PreRun, suite.RunE
	return root
}

// curatorLabel names the configured curator in a results file: the LLM's
// provider and model with it, so that two runs say what wrote their notes.
func curatorLabel(mc local.Config) string {
	name := mc.CuratorName()
	if name == local.CuratorLLM {
		name += " (" + mc.LLM + ")"
	}
	return name
}
