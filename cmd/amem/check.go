package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/sqlite"
)

// errFaults is check's error when it ran and found faults: exit status 1,
// the faults already printed.
var errFaults = errors.New("the database has faults")

func (a *app) checkCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "verify the database: SQLite integrity, history, links, change feed, queue, namespaces",
		Long: `check reads the whole database, without changing it, and lists every fault
in plain words:

  sqlite        SQLite's integrity check: pages, rows, indexes
  foreign_keys  rows that refer to missing rows
  notes         keywords, tags and metadata that can't be read back
  namespaces    notes of an unrecorded namespace; embeddings of the wrong length
  history       notes whose versions are not exactly 1..N (N their version)
  links         links to missing notes, across namespaces, to themselves, or
                with a strength outside [0, 1]
  feed          notes or deletions numbered past their namespace's change feed,
                so other processes' indexes would miss them
  queue         pending notes not due for enrichment, done notes still due

It works on a database that amem refuses to open as damaged, and beside a
running server (it reads one snapshot). It exits 0 and prints counts when
the database is sound, 1 when it found a fault. It takes about 1 s per
10,000 notes.`,
		Example: `  amem check --db amem.db
  amem check --db amem.db --json | jq '.faults[].message'`,
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pg, err := local.IsPostgres(a.Cfg.Path); err != nil {
				return usagef("%v", err)
			} else if pg {
				return usagef("amem check reads a SQLite file, and --db names a PostgreSQL database (%s); "+
					"PostgreSQL checks its own pages (see its amcheck module)", local.ShowDB(a.Cfg.Path))
			}
			if err := a.checkDB(true); err != nil {
				return err
			}
			r, err := sqlite.Check(a.ctx, a.Cfg.Path)
			if err != nil {
				return err
			}
			if a.jsonOut {
				if err := a.printJSON(r); err != nil {
					return err
				}
			} else {
				for _, f := range r.Faults {
					fmt.Fprintln(a.stdout, f)
				}
				if r.Unlisted > 0 {
					fmt.Fprintf(a.stdout, "... and %s more (at most 100 are listed per check)\n", count(r.Unlisted, "fault"))
				}
				counts := strings.Join([]string{count(r.Namespaces, "namespace"), count(r.Notes, "note"),
					count(r.Versions, "version"), count(r.Links, "link")}, ", ")
				if r.OK() {
					fmt.Fprintf(a.stdout, "ok: %s\n", counts)
				} else {
					fmt.Fprintf(a.stdout, "%s (%s)\n", count(len(r.Faults)+r.Unlisted, "fault"), counts)
				}
			}
			if !r.OK() {
				return fmt.Errorf("%w: %d found in %s", errFaults, len(r.Faults)+r.Unlisted, a.Cfg.Path)
			}
			return nil
		},
	}
}
