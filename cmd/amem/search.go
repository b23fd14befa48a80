package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

func (a *app) searchCmd() *cobra.Command {
	var k, perHit, budget int
	var mode, from, to, order, tagSource, profile, asOf string
	var minScore float64
	var noRanker, excludeSuperseded bool
	var tags, meta []string
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "find the notes that best answer a query, with their linked notes",
		Example: `  amem search "what did Caroline research?"
  amem search --k 5 --tag family --from 2023-05-01 --to 2023-06-01 --json "adoption"
  amem search --tag pets --tag-source caller "vet"`,
		Args: exactArgs(1, "a query, quoted"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := amem.ParseFilter(from, to, tags, meta)
			if err != nil {
				return err
			}
			if f.TagSource, err = amem.ParseTagSource(tagSource); err != nil {
				return fmt.Errorf("--tag-source: %w", err)
			}
			// The HTTP API's bounds, and the library's for the links:
			// checked before anything is opened.
			if k < 1 || k > amem.MaxK {
				return usagef("--k %d: use a number of hits from 1 to %d", k, amem.MaxK)
			}
			if perHit < -1 {
				return usagef("--links-per-hit %d: use a number of linked notes, 0 for the default (3) or -1 for none", perHit)
			}
			if budget < -1 {
				return usagef("--link-budget %d: use a number of linked notes, 0 for the default (k) or -1 for none", budget)
			}
			switch amem.LinkOrder(order) {
			case "", amem.LinksAfter, amem.LinksInterleaved:
			default:
				return usagef("--link-order %q: use after or interleaved", order)
			}
			if err := amem.ValidNamespace(a.ns()); err != nil {
				return err
			}
			if minScore < 0 || minScore > 1 {
				return usagef("--min-score %v: use a relevance from 0 to 1", minScore)
			}
			switch amem.SearchMode(mode) {
			case amem.SearchHybrid, amem.SearchVector, amem.SearchLexical:
			default:
				return usagef("--mode %q: use hybrid, vector or lexical", mode)
			}
			switch amem.Profile(profile) {
			case "", amem.ProfileAuto, amem.ProfileGeneral, amem.ProfileConversation:
			default:
				return usagef("--profile %q: use auto, general or conversation", profile)
			}
			var at time.Time
			if asOf != "" {
				if at, err = amem.ParseTime(asOf); err != nil {
					return fmt.Errorf("--as-of: %w", err)
				}
			}
			return a.withMemory(func(mem *memory.Memory) error {
				if err := a.knownNamespace(mem, a.ns()); err != nil {
					return err
				}
				res, err := mem.Search(a.ctx, amem.SearchRequest{
					Namespace: a.ns(), Query: args[0], K: k, Mode: amem.SearchMode(mode),
					Filter:      f,
					LinksPerHit: perHit, LinkBudget: budget, LinkOrder: amem.LinkOrder(order),
					NoRanker: noRanker, Profile: amem.Profile(profile), MinScore: minScore,
					AsOf: at, ExcludeSuperseded: excludeSuperseded,
				})
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.Items(res, wire.ResultOf))
				}
				if len(res) == 0 && minScore > 0 {
					fmt.Fprintf(a.stdout, "no notes in namespace %s match with a score of at least %g\n", a.ns(), minScore)
				} else if len(res) == 0 {
					fmt.Fprintf(a.stdout, "no notes in namespace %s match\n", a.ns())
				}
				rank := 0
				rankOf := map[string]int{}
				for _, r := range res {
					if r.Kind == amem.Direct {
						rank++
						rankOf[r.Note.ID] = rank
						fmt.Fprintf(a.stdout, "%2d. %.3f  %s  %s  %s%s\n", rank, r.Score, r.Note.ID, r.Note.EventTime.Format("2006-01-02"), oneLine(r.Note.Content, 80), supersededBy(r.Note))
						continue
					}
					fmt.Fprintf(a.stdout, "    ↳ linked to %d, %.2f  %s  %s%s\n", rankOf[r.Via], r.Score, r.Note.ID, oneLine(r.Note.Content, 70), supersededBy(r.Note))
				}
				return nil
			})
		},
	}
	fl := c.Flags()
	fl.IntVarP(&k, "k", "k", 10, "number of direct hits")
	fl.StringVar(&mode, "mode", "hybrid", "ranking: hybrid, vector or lexical")
	fl.StringVar(&from, "from", "", "only notes whose event time is at or after this (RFC 3339, or a date: midnight UTC)")
	fl.StringVar(&to, "to", "", "only notes whose event time is before this (RFC 3339, or a date: midnight UTC)")
	fl.StringSliceVar(&tags, "tag", nil, "only notes with this tag, in any case (repeatable: all must match)")
	fl.StringVar(&tagSource, "tag-source", "", "which tags --tag matches: caller (only the tags you gave), curator (only the ones amem added) or any")
	fl.StringArrayVar(&meta, "meta", nil, "only notes with metadata KEY=VALUE, exactly (repeatable: all must match)")
	fl.IntVar(&perHit, "links-per-hit", 0, "linked notes per direct hit (default 3; -1 for none)")
	fl.IntVar(&budget, "link-budget", 0, "linked notes in all (default k; -1 for none)")
	fl.StringVar(&order, "link-order", "", "where linked notes go: after (default: after all direct hits) or interleaved (after the hit that brought them)")
	fl.BoolVar(&noRanker, "no-ranker", false, "conversation profile: keep fusion's order, without the learned ranker")
	fl.Float64Var(&minScore, "min-score", 0, "leave out direct hits whose score (relevance, 0 to 1) is below this")
	fl.StringVar(&asOf, "as-of", "", "answer with what was current then (RFC 3339 or a date): notes said later are left out, supersessions after it ignored")
	fl.BoolVar(&excludeSuperseded, "exclude-superseded", false, "leave out notes no longer true (by default a superseded note follows the note that superseded it)")
	fl.StringVar(&profile, "profile", "", "hybrid mode's profile: auto (default: conversation when most notes are dialogue turns \"Speaker: text\"), general or conversation")
	return c
}

// supersededBy is what a search line says of a note no longer true.
func supersededBy(n amem.Note) string {
	if n.SupersededBy == "" {
		return ""
	}
	return "  [superseded by " + n.SupersededBy + "]"
}
