package main

import (
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// evalMoved says where the evaluation went, and how to get there.
const evalMoved = `the evaluation lab is a command of its own, amem-eval, so that the amem
binary does not carry it (nor its plotting libraries). Build it with
'make lab' (or: go build -o bin/amem-eval ./cmd/amem-eval); it takes the
same verbs and flags as amem eval did:
  amem eval [flags]         ->  amem-eval [flags]          (the suite)
  amem eval suite [flags]   ->  amem-eval suite [flags]
  amem eval locomo [flags]  ->  amem-eval locomo [flags]`

// evalCmd is what is left of `amem eval`: whatever follows it, it says
// where the evaluation went and the command line to run there, and exits
// with the usage status.
func (a *app) evalCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "eval",
		Short: "moved: the evaluation (suite, LoCoMo) is amem-eval, built by 'make lab'",
		Long:  "The " + evalMoved + ".",
		// Any arguments and flags, --help included, get the pointer; the
		// configuration is not resolved for it.
		DisableFlagParsing: true,
		PersistentPreRunE:  func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("%s\nInstead of amem eval, run:\n  %s", evalMoved, shellLine(append([]string{"amem-eval"}, args...)))
		},
	}
}

// shellPlain is a word a shell reads as it is.
var shellPlain = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellLine is args as a shell command line, each word that needs it in
// single quotes.
func shellLine(args []string) string {
	words := make([]string, len(args))
	for i, w := range args {
		if shellPlain.MatchString(w) {
			words[i] = w
		} else {
			words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}
