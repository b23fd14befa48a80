// Command amem is the amem binary: CLI verbs over a local memory.
// main only maps an error to an exit code; each verb is in its own file.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/amem-dev/amem"
)

// Exit codes.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2 // bad flags or input
	exitNotFound = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode reports err on stderr, as one line for people or, for a
// command run with --json (a jsonError), as one JSON object, and returns
// the exit status it means.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	code, kind := classify(err)
	var je jsonError
	if errors.As(err, &je) {
		writeJSONError(stderr, je.error, code, kind)
	} else {
		fmt.Fprintf(stderr, "amem: %v\n", err)
	}
	return code
}

// classify is err's exit status and its kind as --json names it.
func classify(err error) (code int, kind string) {
	var ue usageError
	switch {
	case errors.As(err, &ue):
		return exitUsage, "usage"
	case errors.Is(err, amem.ErrInvalid):
		return exitUsage, "invalid"
	case errors.Is(err, amem.ErrNotFound):
		return exitNotFound, "not_found"
	}
	return exitError, "error"
}

// usageError is a mistake in how the command was typed.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}
