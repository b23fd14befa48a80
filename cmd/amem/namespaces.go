package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/wire"
)

func (a *app) namespacesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "namespaces",
		Short: "list the namespaces the database holds, with their note counts and embedders",
		Args:  exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := []wire.NamespaceSummary{}
			// The store alone: listing needs no embedder.
			err := a.viewStore(func(tx amem.Tx) error {
				infos, err := tx.Namespaces()
				if err != nil {
					return err
				}
				for _, in := range infos {
					st, err := tx.Stats(in.Name)
					if err != nil {
						return err
					}
					out = append(out, wire.NamespaceSummaryOf(in, st.Notes))
				}
				return nil
			})
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(out)
			}
			if len(out) == 0 {
				fmt.Fprintln(a.stdout, "no namespaces yet ('amem add TEXT' makes the first, default)")
			}
			for _, s := range out {
				fmt.Fprintf(a.stdout, "%s  %s  %s (%d-d)\n", s.Name, count(s.Notes, "note"), s.Embedder, s.Dimensions)
			}
			return nil
		},
	}
}
