package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/searchtune"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/memory"
)

// The ranker's cross-validation. Each fold trains a ranker (RankNet,
// ranknet.go) on the other conversations' questions, a candidate of
// the ranker's window labelled by whether it is an evidence turn, and
// scores the held-out conversation with it through Search, so that the
// held-out figures are those of a ranker that never saw the
// conversation. The fusion constants are the run's (the shipped ones
// unless flags move them). Ablations leave groups of features out of
// the training and are scored on the same windows, re-ordered offline
// (the direct hits a search with that ranker would return).

// RankerCV is one mode's ranker cross-validation.
type RankerCV struct {
	Mode     Mode         `json:"mode"`
	Features []string     `json:"features"`
	Training string       `json:"training"`
	Folds    []RankerFold `json:"folds"`
	// Mean is the mean over folds of the held-out figures with each
	// fold's ranker, FusionMean the same searches without a ranker.
	Mean       map[string]map[string]float64 `json:"mean"`
	FusionMean map[string]map[string]float64 `json:"fusion_mean"`
	// Pooled scores every question once, with its fold's ranker.
	Pooled Scores `json:"pooled"`
	// InSampleMean: a ranker trained on every conversation, scored on
	// each (mean over conversations); InSampleWeights are its weights,
	// what --ranker-out writes.
	InSampleMean    map[string]map[string]float64 `json:"in_sample_mean"`
	InSampleWeights map[string]float64            `json:"in_sample_weights"`
	Ablations       []RankerAblation              `json:"ablations"`
	Seconds         float64                       `json:"seconds"`
}

// RankerFold is one held-out conversation.
type RankerFold struct {
	HeldOut string `json:"held_out"`
	// Fusion: the held-out conversation without a ranker; Ranked: with
	// the fold's.
	Fusion Scores `json:"fusion"`
	Ranked Scores `json:"ranked"`
	// TrainPairs is the share of the training questions' (evidence,
	// other) pairs the fold's ranker orders right, each question alike.
	TrainPairs float64            `json:"train_pair_accuracy"`
	Weights    map[string]float64 `json:"weights"`
	// NestedL2 is the penalty the fold chooses for itself in the
	// ablation that does (see fitRanker).
	NestedL2 float64 `json:"nested_l2"`
}

// RankerAblation is the ranker cross-validated without some features.
type RankerAblation struct {
	Without  string   `json:"without"`
	Features []string `json:"features"`
	// Mean is the mean over folds of the held-out recall@K of the direct
	// hits, per category.
	Mean map[string]float64 `json:"mean"`
}

// rankerAblations name groups of features to leave out.
var rankerAblations = []struct {
	name string
	drop func(feature string) bool
}{
	{"question kinds (when-time, who-name, where-place, howmany-number, why-because)", func(f string) bool {
		return slices.Contains([]string{"when-time", "who-name", "where-place", "howmany-number", "why-because"}, f)
	}},
	{"when-time", func(f string) bool { return f == "when-time" }},
	{"names", func(f string) bool { return f == "names" }},
	{"speaker", func(f string) bool { return f == "speaker" }},
	{"term overlaps (overlap, keywords, all-fields)", func(f string) bool {
		return f == "overlap" || f == "keywords" || f == "all-fields"
	}},
	{"first:*", func(f string) bool { return strings.HasPrefix(f, "first:") }},
	{"score:*", func(f string) bool { return strings.HasPrefix(f, "score:") }},
	{"length", func(f string) bool { return f == "length" }},
	{"every feature but the rankings' (fused, rrf:*, first:*, score:*)", func(f string) bool {
		return !(f == "fused" || strings.HasPrefix(f, "rrf:") || strings.HasPrefix(f, "first:") || strings.HasPrefix(f, "score:"))
	}},
}

// rankerApplies says whether a mode's searches go through the ranker:
// hybrid search over enriched notes.
func (c *Config) rankerApplies(m Mode) bool {
	return m.ingest() != ingestRaw && c.Search == amem.SearchHybrid
}

// rankSample is one question's window, for training and offline scoring.
type rankSample struct {
	conv     string
	q        locomo.Question
	rq       rankQuery
	diaIDs   []string // of the window's candidates
	training bool     // categories 1-4 with evidence
}

// rankerCV runs the ranker's folds for every mode it acts on.
func rankerCV(ctx context.Context, convs []locomo.Conversation, cfg Config, mems map[string]*memory.Memory) ([]RankerCV, error) {
	var out []RankerCV
	for _, mode := range cfg.Modes {
		if !cfg.rankerApplies(mode) {
			continue
		}
		start := cfg.Now()
		rc, err := rankerCVMode(ctx, convs, mode, cfg, mems[string(mode.ingest())])
		if err != nil {
			return nil, fmt.Errorf("ranker cv %s: %w", mode, err)
		}
		rc.Seconds = cfg.Now().Sub(start).Seconds()
		out = append(out, rc)
	}
	return out, nil
}

func rankerCVMode(ctx context.Context, convs []locomo.Conversation, mode Mode, cfg Config, mem *memory.Memory) (RankerCV, error) {
	names := memory.RankFeatureNames()
	rc := RankerCV{Mode: mode, Features: names,
		Training: fmt.Sprintf("RankNet pairwise logistic loss on a linear model over standardised features, full-batch Adam (%d iterations, step %g), pairs of a training question (categories 1-4 with evidence) weighing 1 together, L2 penalty %g; window: hybrid fusion's first %d candidates for k=%d",
			rankNetOptions{}.withDefaults().Iterations, rankNetOptions{}.withDefaults().LearningRate, rankNetOptions{}.withDefaults().L2, 2*max(3*cfg.K, 50), cfg.K)}
	fmt.Fprintf(cfg.Progress, "ranker cv %s: reading the candidates' features\n", mode)
	samples, err := rankSamples(ctx, convs, mode, cfg, mem)
	if err != nil {
		return rc, err
	}
	ks := cutoffsUpTo(cfg.K)
	var pooled []QuestionResult
	var folds, inSample []Fold
	opts := rankNetOptions{}.withDefaults()
	full := trainRankNet(trainingQueries(samples, func(string) bool { return true }), len(names), nil, opts)
	rc.InSampleWeights = weightMap(names, full)
	var nested []Fold // with the L2 penalty chosen within each fold
	for _, c := range convs {
		held := c.SampleID
		w := trainRankNet(trainingQueries(samples, func(id string) bool { return id != held }), len(names), nil, opts)
		var trainQs []rankQuery
		for _, s := range samples {
			if s.training && s.conv != held {
				trainQs = append(trainQs, s.rq)
			}
		}
		fmt.Fprintf(cfg.Progress, "ranker cv %s: fold %s\n", mode, held)
		fusion, err := askWith(ctx, c, mode, cfg, mem, func(r *request) { r.tune.Ranker, r.NoRanker = nil, true })
		if err != nil {
			return rc, err
		}
		ranked, err := askWith(ctx, c, mode, cfg, mem, func(r *request) { r.tune.Ranker, r.NoRanker = &memory.Ranker{Weights: weightMap(names, w)}, false })
		if err != nil {
			return rc, err
		}
		ins, err := askWith(ctx, c, mode, cfg, mem, func(r *request) { r.tune.Ranker, r.NoRanker = &memory.Ranker{Weights: rc.InSampleWeights}, false })
		if err != nil {
			return rc, err
		}
		pooled = append(pooled, ranked...)
		rf := RankerFold{HeldOut: held, Fusion: summarise(fusion, ks), Ranked: summarise(ranked, ks),
			TrainPairs: pairAccuracy(trainQs, w), Weights: weightMap(names, w)}
		nw, l2 := fitRanker(samples, func(id string) bool { return id != held }, nil, len(names), cfg.K)
		rf.NestedL2 = l2
		var qs []QuestionResult
		for _, s := range samples {
			if s.conv == held {
				qs = append(qs, offlineResult(s, nw, mode, cfg.K))
			}
		}
		nested = append(nested, Fold{HeldOut: held, Scores: summarise(qs, ks)})
		rc.Folds = append(rc.Folds, rf)
		folds = append(folds, Fold{HeldOut: held, Scores: rf.Ranked, Shipped: rf.Fusion})
		inSample = append(inSample, Fold{HeldOut: held, Scores: summarise(ins, ks)})
	}
	rc.Pooled = summarise(pooled, ks)
	rc.Mean = meanOverFolds(folds, func(f Fold) Scores { return f.Scores })
	rc.FusionMean = meanOverFolds(folds, func(f Fold) Scores { return f.Shipped })
	rc.InSampleMean = meanOverFolds(inSample, func(f Fold) Scores { return f.Scores })
	rc.Ablations = append(rc.Ablations, RankerAblation{
		Without: fmt.Sprintf("the fixed L2 penalty %g: chosen in each fold from %v by leave-one-conversation-out within its training conversations", opts.L2, l2Grid),
		Mean:    atK(meanOverFolds(nested, func(f Fold) Scores { return f.Scores }), cfg.K)})

	for _, ab := range rankerAblations {
		use := make([]bool, len(names))
		var dropped []string
		for i, n := range names {
			use[i] = !ab.drop(n)
			if !use[i] {
				dropped = append(dropped, n)
			}
		}
		var abFolds []Fold
		for _, c := range convs {
			held := c.SampleID
			w := trainRankNet(trainingQueries(samples, func(id string) bool { return id != held }), len(names), use, opts)
			var qs []QuestionResult
			for _, s := range samples {
				if s.conv == held {
					qs = append(qs, offlineResult(s, w, mode, cfg.K))
				}
			}
			abFolds = append(abFolds, Fold{HeldOut: held, Scores: summarise(qs, ks)})
		}
		rc.Ablations = append(rc.Ablations, RankerAblation{Without: ab.name, Features: dropped,
			Mean: atK(meanOverFolds(abFolds, func(f Fold) Scores { return f.Scores }), cfg.K)})
	}
	return rc, nil
}

// rankSamples reads every question's window with its features.
func rankSamples(ctx context.Context, convs []locomo.Conversation, mode Mode, cfg Config, mem *memory.Memory) ([]rankSample, error) {
	var out []rankSample
	for _, c := range convs {
		ns := cfg.namespace(string(mode.ingest()), c.SampleID)
		dia, err := diaIDsOf(ctx, mem, ns)
		if err != nil {
			return nil, err
		}
		req := cfg.search(mode)
		req.Namespace, req.K = ns, cfg.K
		for _, q := range c.QA {
			req.Query = q.Question
			cands, err := mem.RankFeatures(searchtune.With(ctx, req.tune), req.SearchRequest)
			if err != nil {
				return nil, fmt.Errorf("%s question %d: %w", c.SampleID, q.Index, err)
			}
			s := rankSample{conv: c.SampleID, q: q,
				training: len(q.Evidence) > 0 && q.Category >= locomo.CategoryMultiHop && q.Category <= locomo.CategorySingleHop}
			for _, cand := range cands {
				d := dia[cand.ID]
				s.diaIDs = append(s.diaIDs, d)
				s.rq.feats = append(s.rq.feats, cand.Features)
				s.rq.rel = append(s.rq.rel, slices.Contains(q.Evidence, d))
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// diaIDsOf maps a namespace's note IDs to their LoCoMo turn IDs.
func diaIDsOf(ctx context.Context, mem *memory.Memory, ns string) (map[string]string, error) {
	out := map[string]string{}
	err := amem.EachPage(func(after string, n int) ([]amem.Note, error) {
		return mem.List(ctx, ns, amem.ListQuery{After: after, Limit: n})
	}, func(page []amem.Note) (bool, error) {
		for _, n := range page {
			out[n.ID] = n.Metadata["dia_id"]
		}
		return true, nil
	})
	return out, err
}

// askWith asks every question of c in mode with the request changed by
// set, as the run's own searches are scored.
func askWith(ctx context.Context, c locomo.Conversation, mode Mode, cfg Config, mem *memory.Memory, set func(*request)) ([]QuestionResult, error) {
	req := cfg.search(mode)
	req.Namespace = cfg.namespace(string(mode.ingest()), c.SampleID)
	set(&req)
	return askAll(ctx, c, mode, cfg, mem, req, nil)
}

// askAll appends to out the results of every question of c asked with req.
func askAll(ctx context.Context, c locomo.Conversation, mode Mode, cfg Config, mem *memory.Memory, req request, out []QuestionResult) ([]QuestionResult, error) {
	for _, q := range c.QA {
		qr, _, err := retrieve(ctx, mem, req, cfg.K, mode, c.SampleID, q)
		if err != nil {
			return nil, err
		}
		out = append(out, qr)
	}
	return out, nil
}

// offlineResult scores a question's window re-ordered by w: its first k
// as the direct hits (no linked notes).
func offlineResult(s rankSample, w []float64, mode Mode, k int) QuestionResult {
	order := make([]int, len(s.diaIDs))
	for i := range order {
		order[i] = i
	}
	by := make([]float64, len(order))
	for i := range order {
		by[i] = dot(w, s.rq.feats[i])
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case by[a] > by[b]:
			return -1
		case by[a] < by[b]:
			return 1
		}
		return 0
	})
	var ret []string
	for _, i := range order[:min(k, len(order))] {
		ret = append(ret, s.diaIDs[i])
	}
	qr := QuestionResult{Mode: mode, SampleID: s.conv, Index: s.q.Index, Category: s.q.Category,
		Question: s.q.Question, Evidence: nonNil(s.q.Evidence), Retrieved: ret}
	score(&qr, k)
	return qr
}

// weightMap names the non-zero weights.
func weightMap(names []string, w []float64) map[string]float64 {
	m := map[string]float64{}
	for i, x := range w {
		if x != 0 {
			m[names[i]] = x
		}
	}
	return m
}

// l2Grid are the L2 penalties fitRanker chooses among, in the ablation
// that chooses the penalty within each fold instead of fixing it.
var l2Grid = []float64{0.001, 0.003, 0.01, 0.03, 0.1}

// trainingQueries are the training questions of the conversations keep
// accepts.
func trainingQueries(samples []rankSample, keep func(conv string) bool) []rankQuery {
	var qs []rankQuery
	for _, s := range samples {
		if s.training && keep(s.conv) {
			qs = append(qs, s.rq)
		}
	}
	return qs
}

// fitRanker trains weights over dim features (use: see trainRankNet)
// on the training questions of the conversations keep accepts, with the
// L2 penalty of l2Grid that scores best when each of those
// conversations in turn is scored by a ranker trained on the others
// (mean recall@k of the direct hits; ties to the smaller penalty). With
// one conversation there is nothing to hold out: the middle penalty.
func fitRanker(samples []rankSample, keep func(conv string) bool, use []bool, dim, k int) ([]float64, float64) {
	var convs []string
	for _, s := range samples {
		if s.training && keep(s.conv) && !slices.Contains(convs, s.conv) {
			convs = append(convs, s.conv)
		}
	}
	best, bestV := l2Grid[len(l2Grid)/2], -1.0
	if len(convs) >= 2 {
		for _, l2 := range l2Grid {
			v := 0.0
			for _, inner := range convs {
				w := trainRankNet(trainingQueries(samples, func(id string) bool { return keep(id) && id != inner }), dim, use, rankNetOptions{L2: l2})
				sum, n := 0.0, 0
				for _, s := range samples {
					if s.training && s.conv == inner {
						qr := offlineResult(s, w, "", k)
						sum += qr.Recall[fmt.Sprint(k)]
						n++
					}
				}
				if n > 0 {
					v += sum / float64(n)
				}
			}
			if v > bestV+1e-12 {
				best, bestV = l2, v
			}
		}
	}
	return trainRankNet(trainingQueries(samples, keep), dim, use, rankNetOptions{L2: best}), best
}

// atK keeps recall@k of per-category means.
func atK(means map[string]map[string]float64, k int) map[string]float64 {
	at := fmt.Sprintf("recall@%d", k)
	m := map[string]float64{}
	for cat, ms := range means {
		if v, ok := ms[at]; ok {
			m[cat] = v
		}
	}
	return m
}
