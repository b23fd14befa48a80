package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jsonError is the error of a command run with --json: exitCode writes it
// as JSON, so that a program reading the output need not parse prose.
// It goes to stderr, like every other error: stdout holds only results,
// and a command that fails after printing one (enrich --retry with notes
// that failed again) still leaves one JSON document there.
type jsonError struct{ error }

func (e jsonError) Unwrap() error { return e.error }

// errorJSON is what a jsonError prints, one line:
//
//	{"error": "note X: not found ...", "kind": "not_found", "exit_code": 3}
//
// kind is usage (the command was mistyped), invalid (bad input), not_found
// or error (anything else).
type errorJSON struct {
	Error    string `json:"error"`
	Kind     string `json:"kind"`
	ExitCode int    `json:"exit_code"`
}

func writeJSONError(w io.Writer, err error, code int, kind string) {
	b, merr := json.Marshal(errorJSON{Error: err.Error(), Kind: kind, ExitCode: code})
	if merr != nil { // cannot happen for strings and ints; never lose the error
		fmt.Fprintf(w, "amem: %v\n", err)
		return
	}
	fmt.Fprintf(w, "%s\n", b)
}

// asksJSON says whether args ask for --json. It reads the arguments
// itself, because a mistyped command fails before its flags are set, and
// its error must be JSON all the same.
// The last --json given counts, as it does for the flag.
func asksJSON(args []string) bool {
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
