package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/eval"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/memory"
)

// supersedeCmd is `amem-eval supersede`: the supersession rule and the
// restatement rule scored on the labelled pairs of issue 30.
func (a *app) supersedeCmd() *cobra.Command {
	var out, locomoPath string
	c := &cobra.Command{
		Use:   "supersede",
		Short: "score the supersession rule and the restatement rule on labelled pairs of older and newer memories",
		Long: `amem-eval supersede embeds both notes of every pair of eval/testdata/supersede
(an older and a newer memory, labelled supersede, restate, compatible or
unrelated) with the configured embedder and runs two rules on each: the
offline supersession rule (internal/facts: does the newer note make the older
stop being true?) and the restatement rule amem links restatements with (the
cosine floor of --restatement-similarity, then the same names, numbers,
negation and nearly the same words). It prints each rule's precision and
recall on the held-out and tuning halves (a pair is held out when the FNV-1a
hash of "split:" and its two texts is even: fixed before any rule was written;
look at the held-out half only to report), what each rule said by label, and
the supersession rule by shape. It then scores the supersession rule on the
real-neighbour pairs of eval/testdata/supersede/neighbours.jsonl (pairs the
offline curator was really shown in a store), precision with its 95% Wilson
interval; their LoCoMo pairs need --locomo. --out writes every pair's verdict
and reason.`,
		Example: `  amem-eval supersede
  amem-eval supersede --out supersede.json
  amem-eval supersede --locomo ../shared/locomo/locomo-dev.json`,
		Args: cli.ExactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			pairs, err := eval.SupersedePairs()
			if err != nil {
				return err
			}
			mc := a.Cfg
			mc.Log = a.stderr
			emb, err := local.NewEmbedder(a.ctx, mc)
			if err != nil {
				return err
			}
			floor := mc.Options.Enrich.RestatementSimilarity
			if floor == 0 {
				floor = memory.DefaultRestatementSimilarity
			}
			res, err := eval.RunSupersede(a.ctx, pairs, eval.SupersedeConfig{Embedder: emb, RestatementSimilarity: floor})
			if err != nil {
				return err
			}
			var convs []locomo.Conversation
			if locomoPath != "" {
				if convs, err = locomo.Load(locomoPath); err != nil {
					return err
				}
			}
			nbs, skipped, err := eval.NeighbourPairs(convs)
			if err != nil {
				return err
			}
			nres, err := eval.RunNeighbours(a.ctx, nbs, eval.SupersedeConfig{Embedder: emb})
			if err != nil {
				return err
			}
			if out != "" {
				res.Neighbours = nres
				if err := a.writeResults(out, res.WriteJSON); err != nil {
					return err
				}
			}
			if err := res.WriteTable(a.stdout); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\nThe supersession rule on the real-neighbour pairs:\n\n")
			return eval.WriteNeighbourTable(a.stdout, nres, skipped)
		},
	}
	c.Flags().StringVar(&out, "out", "", "write every pair's verdicts and reasons here (JSON)")
	c.Flags().StringVar(&locomoPath, "locomo", "", "LoCoMo JSON file, for the real-neighbour pairs that name LoCoMo's notes")
	return c
}
