package main

import (
	"testing"

	"github.com/amem-dev/amem/internal/cli/clitest"
)

// TestREADMEListsEveryVerbAndFlag keeps the README's CLI table and
// amem-eval's command tree in step, both ways (see clitest.CheckReference).
func TestREADMEListsEveryVerbAndFlag(t *testing.T) {
	clitest.CheckReference(t, "../../README.md", (&app{}).rootCmd())
}
