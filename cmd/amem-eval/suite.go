package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/eval"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/locomo"
)

// suiteCmd is `amem-eval suite`, which bare `amem-eval` runs too.
func (a *app) suiteCmd() *cobra.Command {
	var locomoPath, out, work, fitOut string
	var setNames, modeNames []string
	var k int
	var priors bool
	c := &cobra.Command{
		Use:   "suite",
		Short: "score search on several shapes of memory: agent memories, LoCoMo facts and LoCoMo turns",
		Long: `amem-eval suite ingests sets of memories of different shapes with amem's own
settings (the embedder, curator and search defaults amem search uses) and
scores every query in each search mode: recall@1, @5 and @K and MRR over the
queries something answers, each set's held-out and tuning halves apart (a
query is held out when the FNV-1a hash of "split:" and its key is even:
fixed before any tuning; look at the held-out half only to report).
It also checks the invariants every mode must keep: a note's exact content as
the query returns that note first (own-text@1), and the K hits of a search
are the first K of a deeper one (k-prefix).

Sets: agent (built in: hand-labelled everyday agent memories and queries,
eval/testdata/agent), locomo-facts (LoCoMo's session observations stored as
memories) and locomo-turns (one note per dialogue turn); the LoCoMo sets need
--locomo FILE. Modes: vector, lexical, fusion (hybrid without the extra
rankings or the learned ranker) and default (what amem search does).`,
		Example: `  amem-eval suite --locomo ../shared/locomo/locomo-dev.json --out suite.json
  amem-eval suite --set agent --mode vector,default`,
		Args: cli.ExactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			if k < 1 || k > 100 {
				return cli.Usagef("--k must be between 1 and 100")
			}
			modes, err := suiteModes(modeNames)
			if err != nil {
				return err
			}
			names := splitList(setNames)
			var sets []eval.Set
			var convs []locomo.Conversation
			for _, n := range names {
				switch n {
				case "agent", "locomo-facts", "locomo-turns":
				default:
					return cli.Usagef("--set %q: use agent, locomo-facts or locomo-turns", n)
				}
				if strings.HasPrefix(n, "locomo") && locomoPath == "" {
					return cli.Usagef("--set %s needs --locomo FILE (a LoCoMo JSON file, e.g. ../shared/locomo/locomo-dev.json)", n)
				}
			}
			if locomoPath != "" {
				if convs, err = locomo.Load(locomoPath); err != nil {
					return err
				}
			}
			for _, n := range names {
				switch n {
				case "agent":
					s, err := eval.AgentMemories()
					if err != nil {
						return err
					}
					sets = append(sets, s)
				case "locomo-facts":
					sets = append(sets, eval.LoCoMoObservations(convs))
				case "locomo-turns":
					sets = append(sets, eval.LoCoMoTurns(convs))
				}
			}
			mc := a.Cfg
			mc.Log = a.stderr
			emb, err := local.NewEmbedder(a.ctx, mc)
			if err != nil {
				return err
			}
			opts, err := local.ProductOptions(mc, emb)
			if err != nil {
				return err
			}
			res, err := eval.RunSuite(a.ctx, sets, eval.SuiteConfig{Options: opts, Modes: modes, K: k, WorkDir: work, Progress: a.stderr, Fit: fitOut != "", Priors: priors})
			if err != nil {
				return err
			}
			if fitOut != "" {
				res.Fit.WriteTable(a.stderr, k)
				r := res.Fit.Relevance
				r.About = fmt.Sprintf("fitted by amem-eval suite --fit-relevance on the tuning halves of %s (embedder %s, curator %s) on %s; general order (1-rho)*cosine + rho*share, rho %.2f",
					strings.Join(names, ", "), embedderName(mc.Embedder), mc.CuratorName(), res.Date, res.Fit.Rho)
				if err := a.writeJSON(fitOut, "relevance curves", r); err != nil {
					return err
				}
			}
			if out != "" {
				if err := a.writeResults(out, res.WriteJSON); err != nil {
					return err
				}
			}
			if err := res.WriteTable(a.stdout); err != nil {
				return err
			}
			if res.Priors != nil {
				fmt.Fprintln(a.stdout)
				res.Priors.WriteTable(a.stdout)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&locomoPath, "locomo", "", "LoCoMo JSON file for the locomo-facts and locomo-turns sets")
	f.StringSliceVar(&setNames, "set", nil, "sets, comma-separated or repeated: agent, locomo-facts, locomo-turns (default: agent, and the LoCoMo sets with --locomo)")
	f.StringSliceVar(&modeNames, "mode", nil, "modes, comma-separated or repeated: "+strings.Join(suiteModeNames(), ", ")+" (default: all)")
	f.IntVarP(&k, "k", "k", 10, "depth of the recall figures")
	f.StringVar(&out, "out", "", "write the results file here (JSON)")
	f.StringVar(&work, "work-dir", "", "keep the stores in this directory (default: a temporary one, removed)")
	f.BoolVar(&priors, "priors", false, "also measure recency and recall-frequency priors over the default search, chosen on the tuning halves (docs/SEARCH.md)")
	f.StringVar(&fitOut, "fit-relevance", "", "fit the relevance curves on the tuning halves and write them here, as package local ships them (local/relevance.json)")
	c.PreRun = func(cmd *cobra.Command, args []string) {
		if len(setNames) == 0 {
			setNames = []string{"agent"}
			if locomoPath != "" {
				setNames = append(setNames, "locomo-facts", "locomo-turns")
			}
		}
	}
	return c
}

func suiteModeNames() []string {
	var out []string
	for _, m := range eval.DefaultSuiteModes() {
		out = append(out, m.Name)
	}
	return out
}

func suiteModes(names []string) ([]eval.SuiteMode, error) {
	if len(names) == 0 {
		return eval.DefaultSuiteModes(), nil
	}
	var out []eval.SuiteMode
	for _, n := range splitList(names) {
		found := false
		for _, m := range eval.DefaultSuiteModes() {
			if m.Name == n {
				out, found = append(out, m), true
			}
		}
		if !found {
			return nil, cli.Usagef("--mode %q: use %s", n, strings.Join(suiteModeNames(), ", "))
		}
	}
	return out, nil
}

// splitList flattens repeated, comma-separated flag values.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func embedderName(e string) string {
	if e == "" {
		return local.EmbedderUSELite
	}
	return e
}
