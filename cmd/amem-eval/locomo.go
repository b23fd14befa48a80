package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/cmd/internal/cli"
	"github.com/amem-dev/amem/eval"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/memory"
)

// locomoCmd is `amem-eval locomo`.
func (a *app) locomoCmd() *cobra.Command {
	var data, out, search, work, plotPath, missesPath, embedText, rankerOut string
	var modes, cvGrid []string
	var k int
	var lexWeight, replyWeight, feedbackWeight, denseFeedbackWeight, daySpread float64
	var noEvo, noLinks, doAnswer, cv, noRanker bool
	lc := &cobra.Command{
		Use:   "locomo",
		Short: "LoCoMo: ingest each conversation, search each question, score the context lists",
		Long: `amem-eval locomo ingests every conversation of a LoCoMo-shaped JSON file into its
own namespace (one note per turn, "Speaker: text (image: caption)", event time
the session date), asks every question as a search, and scores the context
list (dia_ids in context order) by recall@k and hit@k for k in 1, 5, 10, 25, 50.
Modes: bm25, vector, hybrid (baselines over raw turns), amem (the full method),
amem-no-evolution, amem-no-links. Several modes share one ingest where sound.

The stores are SQLite files in a temporary (or --work-dir) directory, unless
--db (AMEM_DB, the configuration file) is a postgres:// URL: then the run
writes to that database, in namespaces named eval-TIME-INGEST-CONVERSATION,
which it leaves there (use a scratch database).

--cv adds leave-one-conversation-out cross-validation of the constants that
were tuned on LoCoMo's development split: for each conversation, every
constant is chosen from a small grid by recall@K over categories 1-4 of the
other conversations and the held-out one is scored with it; the table gives
the mean over folds beside the in-sample figure. --cv-grid NAME=V1,V2,...
(repeatable) says which constants and values; the default is
lexical-weight=2,4,8, link-order=after,interleaved, reply-weight=0,1.5 and
feedback-weight=0,2 (search-time: no extra ingest). Also: links-per-hit; hybrid search's extra rankings
reply-weight, feedback-weight and dense-feedback-weight, and day-spread (0
is off; search-time); and the offline curator's link-min-similarity,
link-min-strength and evolve-min-strength, which cost an ingest of every
conversation per value.

With --cv the learned ranker that re-orders hybrid search's candidates is
cross-validated too: each fold trains one on the other conversations and
scores the held-out one with it, beside fusion alone and ablations of its
features. --ranker-out FILE writes the ranker trained on every conversation
(mode amem) as JSON, the form package local ships. --no-ranker searches by
fusion alone (the amem modes use the shipped ranker by default) and skips
the ranker's cross-validation.`,
		Example: `  amem-eval locomo --data ../shared/locomo/locomo-dev.json --mode amem --k 10 --out results.json
  amem-eval locomo --data locomo10.json --mode bm25,vector,hybrid,amem --out all.json
  amem-eval locomo --data locomo10.json --db postgres://localhost/scratch --mode amem
  amem-eval locomo --data ../shared/locomo/locomo-dev.json --mode amem --cv --out cv.json
  amem-eval locomo --data ../shared/locomo/locomo-dev.json --mode amem --cv-grid lexical-weight=1,2,4,6 --cv-grid link-min-similarity=0.3,0.35,0.4`,
		Args: cli.ExactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			if data == "" {
				return cli.Usagef("--data FILE is required (a LoCoMo JSON file, e.g. ../shared/locomo/locomo-dev.json)")
			}
			var ms []eval.Mode
			for _, s := range modes {
				for _, part := range strings.Split(s, ",") {
					m, err := eval.ParseMode(strings.TrimSpace(part))
					if err != nil {
						return cli.Usagef("%v", err)
					}
					if noEvo && m == eval.ModeAMem {
						m = eval.ModeNoEvo
					}
					if noLinks && m == eval.ModeAMem {
						m = eval.ModeNoLinks
					}
					ms = append(ms, m)
				}
			}
			if k < 1 || k > amem.MaxK {
				return cli.Usagef("--k must be between 1 and %d", amem.MaxK)
			}
			sm := amem.SearchMode(search)
			if sm != amem.SearchHybrid && sm != amem.SearchVector && sm != amem.SearchLexical {
				return cli.Usagef("--search %q: use hybrid, vector or lexical", search)
			}
			if lexWeight < 0 {
				return cli.Usagef("--lexical-weight must be positive")
			}
			if replyWeight < 0 || feedbackWeight < 0 || denseFeedbackWeight < 0 {
				return cli.Usagef("--reply-weight, --feedback-weight and --dense-feedback-weight must be 0 (off) or more")
			}
			if daySpread < 0 || daySpread >= 1 {
				return cli.Usagef("--day-spread must be from 0 (off) to below 1")
			}
			if rankerOut != "" && !cv && len(cvGrid) == 0 {
				return cli.Usagef("--ranker-out trains the ranker in the cross-validation: add --cv")
			}
			if rankerOut != "" && noRanker {
				return cli.Usagef("--ranker-out and --no-ranker: the ranker is trained only when it is on; drop --no-ranker")
			}
			if rankerOut != "" && !slices.Contains(ms, eval.ModeAMem) {
				return cli.Usagef("--ranker-out writes the ranker trained for mode amem: add --mode amem")
			}
			var grid []eval.GridParam
			if len(cvGrid) > 0 {
				g, err := eval.ParseGrid(cvGrid)
				if err != nil {
					return cli.Usagef("--cv-grid: %v", err)
				}
				grid = g
			} else if cv {
				grid = eval.DefaultGrid()
			}
			// mc is the memory configuration: the embedder, curator and LLM.
			mc := a.Cfg
			mc.Log = a.stderr
			if lexWeight == 0 {
				lexWeight = local.LexicalWeight(mc.Embedder)
			}
			// The extra rankings default to the embedder's, as amem
			// search uses; 0 given on the command line is off.
			reply, feedback := local.ExtraRankings(mc.Embedder)
			if !cmd.Flags().Changed("reply-weight") {
				replyWeight = reply
			}
			if !cmd.Flags().Changed("feedback-weight") {
				feedbackWeight = feedback
			}
			if embedText == "" {
				embedText = local.EmbedTextName(mc.CuratorName())
			}
			if local.EmbedTexts[embedText] == nil {
				return cli.Usagef("--embed-text %q: use content or paper", embedText)
			}
			if doAnswer && mc.LLM == "" {
				return cli.Usagef("--answer needs an LLM: set AMEM_LLM=openai:MODEL or anthropic:MODEL (or --llm)")
			}
			if err := cli.CheckLLM(a.ctx, mc, doAnswer, nil); err != nil {
				return err
			}
			convs, err := locomo.Load(data)
			if err != nil {
				return err
			}
			if len(grid) > 0 && len(convs) < 2 {
				return cli.Usagef("--cv holds out one conversation at a time and needs at least 2; %s has %d", data, len(convs))
			}
			emb, err := local.NewEmbedder(a.ctx, mc)
			if err != nil {
				return err
			}
			name := curatorLabel(mc)
			if name == local.CuratorNone {
				return cli.Usagef("--curator none: the amem modes need a curator (offline or llm)")
			}
			cur, err := local.NewCurator(mc, emb)
			if err != nil {
				return err
			}
			if name == local.CuratorOffline {
				// The run makes its own, so that a grid can vary the
				// offline curator's thresholds.
				cur = nil
			}
			for _, p := range grid {
				if p.Ingest && cur != nil {
					return cli.Usagef("--cv-grid %s: the offline curator's constant; this run's curator is %s", p.Name, name)
				}
			}
			cfg := eval.Config{
				Modes: ms, K: k, Embedder: emb, Curator: cur, CuratorName: name, Search: sm, LexicalWeight: lexWeight,
				ReplyWeight: replyWeight, FeedbackWeight: feedbackWeight, DenseFeedbackWeight: denseFeedbackWeight, DaySpread: daySpread,
				EmbedText: local.EmbedTexts[embedText], EmbedTextName: embedText, WorkDir: work, Progress: a.stderr, CV: grid,
				NoRanker: noRanker,
			}
			if cfg.Ranker, err = local.Ranker(mc.Embedder); err != nil {
				return err
			}
			// A PostgreSQL database runs the benchmark in it; a SQLite
			// path (the default database included) is left alone, and the
			// stores are files in the work directory.
			pg, err := local.IsPostgres(mc.Path)
			if err != nil {
				return err
			}
			if pg {
				if work != "" {
					return cli.Usagef("--work-dir holds SQLite stores; with a PostgreSQL --db the run writes to that database")
				}
				db := mc.Path
				cfg.Store = func(ctx context.Context) (amem.Store, error) { return local.OpenStore(ctx, db) }
				cfg.NamespacePrefix = "eval-" + time.Now().UTC().Format("20060102T150405") + "-"
				fmt.Fprintf(a.stderr, "running in %s, namespaces %s*\n", local.ShowDB(db), cfg.NamespacePrefix)
			}
			if doAnswer {
				llm, err := local.NewLLM(mc.LLM, mc.LLMEndpoint)
				if err != nil {
					return err
				}
				cfg.Answerer, cfg.AnswererName = llm, mc.LLM
			}
			res, err := eval.Run(a.ctx, convs, cfg)
			if err != nil {
				return err
			}
			if out != "" {
				if err := a.writeResults(out, res.WriteJSON); err != nil {
					return err
				}
			}
			if rankerOut != "" {
				if err := writeRanker(a, rankerOut, res, data); err != nil {
					return err
				}
			}
			if plotPath != "" {
				if err := res.WritePlot(plotPath); err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "plot written to %s\n", plotPath)
			}
			if err := res.WriteTable(a.stdout, k); err != nil {
				return err
			}
			if missesPath != "" {
				return writeMisses(a, missesPath, eval.Misses(res, convs, k))
			}
			return nil
		},
	}
	f := lc.Flags()
	f.StringVar(&data, "data", "", "LoCoMo JSON file")
	f.StringVar(&out, "out", "", "write the results file here")
	f.StringSliceVar(&modes, "mode", []string{"amem"}, "modes, comma-separated or repeated: bm25, vector, hybrid, amem, amem-no-evolution, amem-no-links")
	f.IntVarP(&k, "k", "k", 10, "direct hits per search")
	f.StringVar(&search, "search", "hybrid", "ranking of the amem modes: hybrid, vector or lexical")
	f.StringVar(&embedText, "embed-text", "", "text embedded per note in the amem modes: content (the note's content) or paper (content, context, keywords and tags; Eq. 3) (default: the curator's, as amem uses: content for offline, paper for llm)")
	f.Float64Var(&lexWeight, "lexical-weight", 0, "weight of the full-text ranking in the amem modes' hybrid fusion (default: the embedder's, as amem search uses; the hybrid baseline always uses 1)")
	f.Float64Var(&replyWeight, "reply-weight", 0, "weight of hybrid search's reply ranking in the amem modes (the notes right after the first hits; 0: off) (default: the embedder's, as amem search uses)")
	f.Float64Var(&feedbackWeight, "feedback-weight", 0, "weight of hybrid search's feedback ranking in the amem modes (a full-text search of the first hits' keywords; 0: off) (default: the embedder's, as amem search uses)")
	f.Float64Var(&denseFeedbackWeight, "dense-feedback-weight", 0, "weight of hybrid search's dense feedback ranking in the amem modes (a vector search of the mean of the first hits' embeddings; 0: off)")
	f.Float64Var(&daySpread, "day-spread", 0, "spread the amem modes' hybrid hits over days: each hit's score is multiplied by 1 - this for every better hit from the same day (0: off)")
	f.BoolVar(&noEvo, "no-evolution", false, "amem without memory evolution (same as --mode amem-no-evolution)")
	f.BoolVar(&noLinks, "no-links", false, "amem without linked notes in retrieval (same as --mode amem-no-links)")
	f.BoolVar(&doAnswer, "answer", false, "answer each question with the configured LLM from its context list and score the answers (F1, set-F1, BLEU-1)")
	f.StringVar(&plotPath, "plot", "", "draw recall@k curves per mode into this PNG file")
	f.BoolVar(&cv, "cv", false, "add leave-one-conversation-out cross-validation of the tuned constants (see above)")
	f.StringArrayVar(&cvGrid, "cv-grid", nil, "a constant and its values for --cv, NAME=V1,V2,... (repeatable; implies --cv)")
	f.StringVar(&missesPath, "misses", "", "write the failure analysis here: every evidence turn missed at K, with its rank, whether it came linked, whether the turn before was a hit, the content words it shares with the question; and print its counts")
	f.StringVar(&work, "work-dir", "", "keep the stores in this directory (default: a temporary one, removed)")
	f.BoolVar(&noRanker, "no-ranker", false, "search the amem modes by fusion alone, without the learned ranker, and skip its cross-validation (the ablation)")
	f.StringVar(&rankerOut, "ranker-out", "", "with --cv: write the ranker trained on every conversation (mode amem) here, as JSON")
	return lc
}

// writeResults writes a results file with write and says where.
func (a *app) writeResults(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "results written to %s\n", path)
	return nil
}

// writeJSON writes v to path as indented JSON, as package local ships
// its files, and says on stderr what was written where.
func (a *app) writeJSON(path, what string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "%s written to %s\n", what, path)
	return nil
}

// writeMisses writes the failure analysis to path and its counts to stdout.
func writeMisses(a *app, path string, rep eval.MissReport) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteJSON(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(a.stderr, "failure analysis written to %s\n", path)
	fmt.Fprintln(a.stdout)
	rep.WriteSummary(a.stdout)
	return nil
}

// writeRanker writes the ranker the run trained on every conversation
// for mode amem, as package local's ranker.json holds it.
func writeRanker(a *app, path string, res *eval.Results, data string) error {
	for _, rc := range res.CV.Ranker {
		if rc.Mode != eval.ModeAMem {
			continue
		}
		r := memory.Ranker{Weights: rc.InSampleWeights, About: fmt.Sprintf(
			"trained by amem-eval locomo --ranker-out on %s (%d conversations, mode amem, k=%d, embedder %s, curator %s) on %s; %s",
			filepath.Base(data), len(rc.Folds), res.Config.K, res.Config.Embedder, res.Config.Curator, time.Now().UTC().Format(time.DateOnly), rc.Training)}
		if err := r.Validate(); err != nil {
			return err
		}
		return a.writeJSON(path, "ranker", r)
	}
	return fmt.Errorf("--ranker-out: the run trained no ranker for mode amem")
}
