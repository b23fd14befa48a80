package main

import (
	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/eval"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/memory"
)

// supersedeCmd is `amem-eval supersede`: the supersession rule and the
// restatement rule scored on the labelled pairs of issue 30.
func (a *app) supersedeCmd() *cobra.Command {
	var out string
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
the supersession rule by shape. --out writes every pair's verdict and reason.`,
		Example: `  amem-eval supersede
  amem-eval supersede --out supersede.json`,
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
			if out != "" {
				if err := a.writeResults(out, res.WriteJSON); err != nil {
					return err
				}
			}
			return res.WriteTable(a.stdout)
		},
	}
	c.Flags().StringVar(&out, "out", "", "write every pair's verdicts and reasons here (JSON)")
	return c
}
