package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JSONError is the error of a command run with --json: ExitCode writes it
// as JSON, so that a program reading the output need not parse prose.
// It goes to stderr, like every other error: stdout holds only results,
// and a command that fails after printing one (enrich --retry with notes
// that failed again) still leaves one JSON document there.
type JSONError struct{ Err error }

func (e JSONError) Error() string { return e.Err.Error() }
func (e JSONError) Unwrap() error { return e.Err }

// ErrorJSON is what a JSONError prints, one line:
//
//	{"error": "note X: not found ...", "kind": "not_found", "exit_code": 3}
//
// kind is usage (the command was mistyped), invalid (bad input), not_found
// or error (anything else).
type ErrorJSON struct {
	Error    string `json:"error"`
	Kind     string `json:"kind"`
	ExitCode int    `json:"exit_code"`
}

func writeJSONError(w io.Writer, prog string, err error, code int, kind string) {
	b, merr := json.Marshal(ErrorJSON{Error: err.Error(), Kind: kind, ExitCode: code})
	if merr != nil { // cannot happen for strings and ints; never lose the error
		fmt.Fprintf(w, "%s: %v\n", prog, err)
		return
	}
	fmt.Fprintf(w, "%s\n", b)
}

// AsksJSON says whether args ask for --json. It reads the arguments
// itself, because a mistyped command fails before its flags are set, and
// its error must be JSON all the same.
// The last --json given counts, as it does for the flag.
func AsksJSON(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" {
			on = true
		} else if v, ok := strings.CutPrefix(a, "--json="); ok {
			b, err := strconv.ParseBool(v)
			on = err == nil && b
		}
	}
	return on
}
