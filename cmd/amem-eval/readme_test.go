package main

import (
	"testing"

	"github.com/amem-dev/amem/cmd/internal/cli/clitest"
)

// TestREADMEListsEveryVerbAndFlag keeps the CLI table in docs/CLI.md and
// amem-eval's command tree in step, both ways (see clitest.CheckReference).
func TestREADMEListsEveryVerbAndFlag(t *testing.T) {
	clitest.CheckReference(t, "../../docs/CLI.md", (&app{}).rootCmd())
}
