package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/eval"
)

// pairedCmd is `amem-eval paired`: two suite runs compared query by query.
func (a *app) pairedCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "paired BEFORE.json AFTER.json",
		Short: "compare two suite results files query by query: which queries gained or lost, and whether the change is larger than the run can tell",
		Long: `amem-eval paired reads two results files of amem-eval suite --out (say, from
the commit before a change and after it) and compares them query by query,
per set, mode and half: how many queries' recall@K rose or fell, the mean
difference and its 95% bootstrap interval over queries (4,000 resamples,
seeded). "lower" or "higher" means the interval excludes no change; "no
difference measured" means it does not, whatever the two means say: with 156
questions one question moves recall@10 by up to 0.0064.`,
		Example: `  git stash; make lab; ./bin/amem-eval suite --out before.json; git stash pop
  make lab; ./bin/amem-eval suite --out after.json
  ./bin/amem-eval paired before.json after.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return cli.Usagef("paired takes two results files of amem-eval suite --out, BEFORE and AFTER; got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var runs [2]*eval.SuiteResults
			for i, path := range args {
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				var r eval.SuiteResults
				if err := json.Unmarshal(b, &r); err != nil {
					return fmt.Errorf("%s: not a results file of amem-eval suite: %w", path, err)
				}
				if len(r.Queries) == 0 {
					return fmt.Errorf("%s holds no per-query figures (not written by amem-eval suite --out, or by a version before they were kept); run the suite again", path)
				}
				runs[i] = &r
			}
			rows, err := eval.Paired(runs[0], runs[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "amem-eval paired: %s (%s, %s) against %s (%s, %s)\n\n", args[1], runs[1].Date, runs[1].Machine, args[0], runs[0].Date, runs[0].Machine)
			eval.WritePairedTable(a.stdout, rows, runs[0].K)
			return nil
		},
	}
}
