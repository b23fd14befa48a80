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

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "amem: %v\n", err)
	var ue usageError
	switch {
	case errors.As(err, &ue), errors.Is(err, amem.ErrInvalid):
		return exitUsage
	case errors.Is(err, amem.ErrNotFound):
		return exitNotFound
	}
	return exitError
}

// usageError is a mistake in how the command was typed.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}
