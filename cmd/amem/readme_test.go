package main

import (
	"testing"

	"github.com/amem-dev/amem/cmd/internal/cli/clitest"
)

// TestREADMEListsEveryVerbAndFlag keeps the CLI table in docs/CLI.md and amem's
// command tree in step, both ways (see clitest.CheckReference);
// cmd/amem-eval's test does the same for amem-eval's rows.
func TestREADMEListsEveryVerbAndFlag(t *testing.T) {
	clitest.CheckReference(t, "../../docs/CLI.md", (&app{}).rootCmd())
}
