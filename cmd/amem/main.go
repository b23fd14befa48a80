// Command amem is the amem binary: CLI verbs over a local memory.
// main only maps an error to an exit code; each verb is in its own file.
// The evaluation lab is a command of its own, cmd/amem-eval; what the two
// share (the global flags and configuration, usage errors, exit codes) is
// in cmd/internal/cli.
package main

import (
	"io"

	"github.com/amem-dev/amem/cmd/internal/cli"
)

// Exit codes (cli's).
const (
	exitError    = cli.ExitError
	exitUsage    = cli.ExitUsage // bad flags or input
	exitNotFound = cli.ExitNotFound
)

// The verbs' names for what cmd/internal/cli provides.
var (
	usagef    = cli.Usagef
	exactArgs = cli.ExactArgs
)

// usageError is a mistake in how the command was typed.
type usageError = cli.UsageError

func main() { cli.Main("amem", run) }

// exitCode reports err on stderr, as one line for people or, for a
// command run with --json, as one JSON object, and returns the exit
// status it means.
func exitCode(err error, stderr io.Writer) int { return cli.ExitCode("amem", err, stderr) }
