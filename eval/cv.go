package eval

import (
	"context"
	"fmt"
	"slices"

	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/offline"
)

// CVReport is the leave-one-conversation-out report of a run.
type CVReport struct {
	// Criterion is what a fold maximises on its training conversations.
	Criterion string      `json:"criterion"`
	Grid      []GridParam `json:"grid"`
	Modes     []ModeCV    `json:"modes"`
	// Seconds is the time the grid's ingests and searches took.
	Seconds float64 `json:"seconds"`
	// Ranker is the learned ranker's cross-validation, per mode it acts
	// on (ranker.go): absent when the run turned the ranker off.
	Ranker []RankerCV `json:"ranker,omitempty"`
}

// ModeCV is one mode's cross-validation.
type ModeCV struct {
	Mode Mode `json:"mode"`
	// Params are the grid's constants that act on this mode; Points the
	// grid points each fold chose among.
	Params []string `json:"params"`
	Points int      `json:"points"`
	// InSample: the shipped constants, every conversation (the summary's
	// figures at cut-offs up to K).
	InSample Scores `json:"in_sample"`
	// Best is the grid point best on every conversation together: what
	// choosing on the test set gives, the ceiling of in-sample tuning.
	Best Choice `json:"best_in_sample"`
	// Folds hold out one conversation each.
	Folds []Fold `json:"folds"`
	// Mean is the mean over folds of the held-out figures, per category
	// (over the folds whose conversation has questions of it), and
	// InSampleMean the same mean of the folds' Shipped figures: the
	// in-sample figure averaged the same way, conversations weighing
	// alike however many questions they have.
	Mean         map[string]map[string]float64 `json:"mean"`
	InSampleMean map[string]map[string]float64 `json:"in_sample_mean"`
	// Pooled scores every question once, under the constants its fold
	// chose: comparable question for question with InSample.
	Pooled Scores `json:"pooled"`
}

// Choice is a grid point and its scores.
type Choice struct {
	Setting   Setting `json:"setting"`
	Criterion float64 `json:"criterion"`
	Scores    Scores  `json:"scores"`
}

// Fold is one held-out conversation.
type Fold struct {
	HeldOut string `json:"held_out"`
	// Chosen is the grid point best on the other conversations, and
	// TrainCriterion its criterion there.
	Chosen         Setting `json:"chosen"`
	TrainCriterion float64 `json:"train_criterion"`
	// Scores: the held-out conversation under Chosen; Shipped: under the
	// shipped constants, as in the in-sample figure.
	Scores  Scores `json:"scores"`
	Shipped Scores `json:"shipped"`
}

// criterionText documents the choice rule in the results file.
func criterionText(k int) string {
	return fmt.Sprintf("recall@%d pooled over the category 1-4 questions with evidence of the training conversations; ties go to the point that moves the fewest constants off their shipped values, then to the earlier one", k)
}

// criterion is the pooled recall@k over the category 1-4 questions with
// evidence whose conversation keep accepts.
func criterion(qs []QuestionResult, k int, keep func(sampleID string) bool) float64 {
	key := fmt.Sprint(k)
	sum, n := 0.0, 0
	for _, q := range qs {
		if q.Recall == nil || q.Category < locomo.CategoryMultiHop || q.Category > locomo.CategorySingleHop || !keep(q.SampleID) {
			continue
		}
		sum += q.Recall[key]
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// choose returns the index of the grid point with the best criterion on
// the conversations keep accepts, and that criterion. Points within 1e-12
// of the best count as tied, and a tie goes to the point that moves the
// fewest constants off their shipped values (the shipped point itself if
// it is tied), then to the earliest: a constant whose values all score
// alike is left where it was.
func choose(settings []Setting, results [][]QuestionResult, shipped Setting, k int, keep func(string) bool) (int, float64) {
	best, bestV := -1, 0.0
	for i := range settings {
		v := criterion(results[i], k, keep)
		switch {
		case best < 0 || v > bestV+1e-12:
			best, bestV = i, v
		case v >= bestV-1e-12 && moved(settings[i], shipped) < moved(settings[best], shipped):
			best = i
		}
	}
	return best, bestV
}

// moved counts the constants of s that are off their shipped values.
func moved(s, shipped Setting) int {
	n := 0
	for name, v := range s {
		if shipped[name] != v {
			n++
		}
	}
	return n
}

// folds runs the leave-one-out choice: for each conversation, the grid
// point best on the others, scored on it. results[i] are every question's
// results at settings[i]; shippedQs the run's own at the shipped values.
// The held-out conversation's questions never enter its fold's choice.
func folds(mode Mode, settings []Setting, results [][]QuestionResult, shippedQs []QuestionResult, convs []string, shipped Setting, k int) ModeCV {
	ks := cutoffsUpTo(k)
	mc := ModeCV{Mode: mode, Points: len(settings), InSample: summarise(shippedQs, ks)}
	for name := range shipped {
		mc.Params = append(mc.Params, name)
	}
	slices.Sort(mc.Params)
	all := func(string) bool { return true }
	b, bv := choose(settings, results, shipped, k, all)
	mc.Best = Choice{Setting: settings[b], Criterion: bv, Scores: summarise(results[b], ks)}
	var pooled []QuestionResult
	for _, held := range convs {
		train := func(id string) bool { return id != held }
		test := func(id string) bool { return id == held }
		i, tv := choose(settings, results, shipped, k, train)
		heldQs := filterConv(results[i], test)
		pooled = append(pooled, heldQs...)
		mc.Folds = append(mc.Folds, Fold{
			HeldOut: held, Chosen: settings[i], TrainCriterion: tv,
			Scores: summarise(heldQs, ks), Shipped: summarise(filterConv(shippedQs, test), ks),
		})
	}
	mc.Pooled = summarise(pooled, ks)
	mc.Mean = meanOverFolds(mc.Folds, func(f Fold) Scores { return f.Scores })
	mc.InSampleMean = meanOverFolds(mc.Folds, func(f Fold) Scores { return f.Shipped })
	return mc
}

func filterConv(qs []QuestionResult, keep func(string) bool) []QuestionResult {
	var out []QuestionResult
	for _, q := range qs {
		if keep(q.SampleID) {
			out = append(out, q)
		}
	}
	return out
}

// meanOverFolds averages the folds' scores (which picks) per category
// and metric, over the folds that have the category.
func meanOverFolds(fs []Fold, which func(Fold) Scores) map[string]map[string]float64 {
	sum := map[string]map[string]float64{}
	n := map[string]map[string]int{}
	for _, f := range fs {
		for cat, ms := range which(f).Means {
			if sum[cat] == nil {
				sum[cat], n[cat] = map[string]float64{}, map[string]int{}
			}
			for m, v := range ms {
				sum[cat][m] += v
				n[cat][m]++
			}
		}
	}
	for cat, ms := range sum {
		for m := range ms {
			ms[m] /= float64(n[cat][m])
		}
	}
	return sum
}

// cutoffsUpTo are the cut-offs read from the context list itself.
func cutoffsUpTo(k int) []int {
	var ks []int
	for _, c := range cutoffs(k) {
		if c <= k {
			ks = append(ks, c)
		}
	}
	return ks
}

// crossValidate scores every grid point of every mode the grid acts on
// and runs the folds. mems holds the run's ingests by name; the grid's
// extra ingests are added to it (the caller closes them) and to
// res.Ingest.
func crossValidate(ctx context.Context, convs []locomo.Conversation, cfg Config, mems map[string]*memory.Memory, res *Results) (*CVReport, error) {
	start := cfg.Now()
	rep := &CVReport{Criterion: criterionText(cfg.K)}
	for _, p := range cfg.CV {
		t, _ := findTunable(p.Name)
		p.Shipped = t.shipped(&cfg)
		rep.Grid = append(rep.Grid, p)
	}
	ids := make([]string, len(convs))
	for i, c := range convs {
		ids[i] = c.SampleID
	}
	// The grid chooses fusion's constants by fusion alone: the run's
	// ranker was trained on these conversations, and would carry what it
	// learned of the held-out one into every fold. The ranker has its own
	// cross-validation (rankerCV).
	fusion := cfg
	fusion.Ranker = nil
	for _, mode := range cfg.Modes {
		var params []GridParam
		shipped := Setting{}
		for _, p := range rep.Grid {
			if t, _ := findTunable(p.Name); t.applies(&cfg, mode) {
				params = append(params, p)
				shipped[p.Name] = p.Shipped
			}
		}
		if len(params) == 0 {
			continue
		}
		settings := points(params)
		results := make([][]QuestionResult, len(settings))
		for i, s := range settings {
			fmt.Fprintf(cfg.Progress, "cv %s: grid point %d/%d: %s\n", mode, i+1, len(settings), s)
			mem, name, err := gridIngest(ctx, convs, mode.ingest(), s, shipped, cfg, mems, res)
			if err != nil {
				return nil, fmt.Errorf("cv %s %s: %w", mode, s, err)
			}
			if results[i], err = gridSearch(ctx, convs, mode, mem, name, s, fusion); err != nil {
				return nil, fmt.Errorf("cv %s %s: %w", mode, s, err)
			}
		}
		var own []QuestionResult
		for _, q := range res.Questions {
			if q.Mode == mode {
				own = append(own, q)
			}
		}
		if cfg.Ranker != nil && !cfg.NoRanker && cfg.rankerApplies(mode) {
			// The run's own figures went through the ranker; the grid's
			// in-sample figure is fusion's at the shipped constants.
			var err error
			if own, err = gridSearch(ctx, convs, mode, mems[string(mode.ingest())], string(mode.ingest()), shipped, fusion); err != nil {
				return nil, fmt.Errorf("cv %s: %w", mode, err)
			}
		}
		rep.Modes = append(rep.Modes, folds(mode, settings, results, own, ids, shipped, cfg.K))
	}
	rep.Seconds = cfg.Now().Sub(start).Seconds()
	return rep, nil
}

// gridIngest returns the memory a grid point searches: the run's own
// ingest when the point's ingest-time constants are the shipped ones,
// else an ingest of its own through an offline curator set to them.
func gridIngest(ctx context.Context, convs []locomo.Conversation, kind ingestKind, s, shipped Setting, cfg Config, mems map[string]*memory.Memory, res *Results) (*memory.Memory, string, error) {
	var opts offline.Options
	name := string(kind)
	for _, t := range tunables {
		v, ok := s[t.name]
		if !ok || !t.ingest || v == shipped[t.name] {
			continue
		}
		t.curator(&opts, v)
		name += "-" + t.name + "-" + v
	}
	if mem := mems[name]; mem != nil {
		return mem, name, nil
	}
	mem, stats, err := ingest(ctx, convs, name, curatorFor(kind, offline.New(cfg.Embedder, &opts)), cfg)
	if err != nil {
		return nil, "", fmt.Errorf("ingest %s: %w", name, err)
	}
	mems[name] = mem
	res.Ingest = append(res.Ingest, stats)
	return mem, name, nil
}

// gridSearch asks every question at a grid point's search-time constants,
// in the namespaces of the ingest named ingestName.
func gridSearch(ctx context.Context, convs []locomo.Conversation, mode Mode, mem *memory.Memory, ingestName string, s Setting, cfg Config) ([]QuestionResult, error) {
	req := cfg.search(mode)
	for _, t := range tunables {
		if v, ok := s[t.name]; ok && !t.ingest {
			t.search(&req, v)
		}
	}
	var out []QuestionResult
	for _, c := range convs {
		req.Namespace = cfg.namespace(ingestName, c.SampleID)
		var err error
		if out, err = askAll(ctx, c, mode, cfg, mem, req, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}
