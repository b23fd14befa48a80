package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/eval"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/locomo"
)

// curatorCmd is `amem-eval curator`: what the curator writes for the
// labelled curator set, scored.
func (a *app) curatorCmd() *cobra.Command {
	var locomoPath, out, tuningOut string
	c := &cobra.Command{
		Use:   "curator",
		Short: "score the curator's keywords, context and tags on the labelled curator set",
		Long: `amem-eval curator has the configured curator (the offline default unless
--curator or an LLM says otherwise) construct every note of the labelled
curator set (eval/testdata/curator: everyday agent memories, and LoCoMo dev
turns by reference with --locomo FILE) and scores what it writes against the
labels, held-out and tuning halves apart (a note is held out when the FNV-1a
hash of "split:" and its ID is even): keyword precision (keywords that stand
whole in the text or are labelled, over keywords written) and recall
(labelled keywords found whole), subject accuracy (the context names the
note's subject before anything else labelled), the kind stated (decision,
preference, plan, fact or event) and tag precision.
LABELLING.md there defines each match. --tuning-out writes what the curator
wrote for each tuning note; the held-out notes' output is never written.`,
		Example: `  amem-eval curator --locomo ../shared/locomo/locomo-dev.json
  amem-eval curator --tuning-out tuning.json`,
		Args: cli.ExactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			var convs []locomo.Conversation
			if locomoPath != "" {
				var err error
				if convs, err = locomo.Load(locomoPath); err != nil {
					return err
				}
			}
			notes, err := eval.CuratorSet(convs)
			if err != nil {
				return err
			}
			mc := a.Cfg
			mc.Log = a.stderr
			emb, err := local.NewEmbedder(a.ctx, mc)
			if err != nil {
				return err
			}
			cur, err := local.NewCurator(mc, emb)
			if err != nil {
				return err
			}
			if cur == nil {
				return cli.Usagef("--curator none writes nothing to score: use offline or llm")
			}
			outs, err := eval.RunCurator(a.ctx, cur, notes, convs, a.stderr)
			if err != nil {
				return err
			}
			rows := eval.CuratorRows(outs)
			if out != "" {
				if err := a.writeJSON(out, "results", map[string]any{"curator": curatorLabel(mc), "rows": rows}); err != nil {
					return err
				}
			}
			if tuningOut != "" {
				var tuning []eval.CuratorOutcome
				for _, o := range outs {
					if !o.HeldOut {
						tuning = append(tuning, o)
					}
				}
				if err := a.writeJSON(tuningOut, "tuning notes", tuning); err != nil {
					return err
				}
			}
			return eval.WriteCuratorTable(a.stdout, rows, time.Now())
		},
	}
	f := c.Flags()
	f.StringVar(&locomoPath, "locomo", "", "LoCoMo JSON file: add the set's LoCoMo turns (labelled by reference)")
	f.StringVar(&out, "out", "", "write the table's rows here (JSON)")
	f.StringVar(&tuningOut, "tuning-out", "", "write what the curator wrote for each tuning note here (JSON); held-out notes are left out")
	return c
}
