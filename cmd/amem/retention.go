package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

// retentionCmd is 'amem retention': a namespace's retention policy shown,
// set, turned off, and applied now for users without a server.
func (a *app) retentionCmd() *cobra.Command {
	var (
		maxAge   string
		maxNotes int
		off      bool
		apply    bool
	)
	c := &cobra.Command{
		Use:   "retention",
		Short: "show or set a namespace's retention policy (max age, max notes); notes past it go to the trash",
		Long: `Show or set a namespace's retention policy. Notes whose event time is older
than --max-age, and all but the newest --max-notes notes, are moved to the
namespace's trash by 'amem serve' (every 10 minutes) or by --apply, and expire
from the trash by its rules. A flag left out keeps its value; --off removes the
policy. To undo a mistaken policy: --off, then 'amem restore ID' from the trash.`,
		Example: `  amem retention -n chat --max-age 90d
  amem retention -n chat --max-notes 10000 --apply
  amem retention -n chat --off`,
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			set := f.Changed("max-age") || f.Changed("max-notes")
			if off && set {
				return usagef("--off removes the policy; give it alone, or --max-age/--max-notes without it")
			}
			ns := a.ns()
			if err := amem.ValidNamespace(ns); err != nil {
				return err
			}
			age := time.Duration(-1) // not given
			if f.Changed("max-age") {
				d, err := amem.ParseAge(maxAge)
				if err != nil {
					return usagef("--max-age %q: give whole days (90d) or a duration (2160h), or 0 for no limit", maxAge)
				}
				age = d
			}
			return a.withMemory(func(mem *memory.Memory) error {
				if off || set {
					p, err := mem.Retention(a.ctx, ns)
					if err != nil {
						return err
					}
					switch {
					case off:
						p = amem.Retention{}
					default:
						if age >= 0 {
							p.MaxAge = age
						}
						if f.Changed("max-notes") {
							p.MaxNotes = maxNotes
						}
					}
					if err := mem.SetRetention(a.ctx, ns, p); err != nil {
						return err
					}
				}
				if apply {
					n, err := mem.ApplyRetention(a.ctx, ns, 0)
					if err != nil {
						return err
					}
					if mem.Trash().Retention() > 0 {
						fmt.Fprintf(a.stderr, "moved %s to the trash ('amem trash -n %s' lists them)\n", count(n, "note"), ns)
					} else {
						fmt.Fprintf(a.stderr, "deleted %s for good (the trash is off)\n", count(n, "note"))
					}
				}
				p, due, err := mem.RetentionDue(a.ctx, ns)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.RetentionOf(ns, p, due))
				}
				fmt.Fprintf(a.stdout, "%s: %s\n", ns, p)
				if !p.IsZero() {
					fmt.Fprintf(a.stdout, "  %s\n", dueLine(due))
				}
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&maxAge, "max-age", "", "move notes whose event time is older than this to the trash: whole days (90d) or a duration (2160h); 0: no limit")
	f.IntVar(&maxNotes, "max-notes", 0, "keep only the newest this many notes by event time, older ones go to the trash; 0: no limit")
	f.BoolVar(&off, "off", false, "remove the policy: every note is kept")
	f.BoolVar(&apply, "apply", false, "apply the policy now, as amem serve's workers do at their next pass")
	return c
}

// dueLine says what a policy would move to the trash now.
func dueLine(due amem.RetentionDue) string {
	if due.Notes == 0 {
		return "nothing to move to the trash now"
	}
	when := "undated"
	if !due.Oldest.Time.IsZero() {
		when = "from " + due.Oldest.Time.Local().Format("2006-01-02")
	}
	return fmt.Sprintf("%s would go to the trash now, the oldest %s %s", count(due.Notes, "note"), due.Oldest.ID, when)
}
