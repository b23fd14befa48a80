package eval

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

// Recency and recall-frequency priors (issue 30, item 3), measured before
// any is built into search: each query's default search is read to
// PriorDepth, and its hits are re-ordered by
//
//	base + w·prior
//
// where base is the hit's relevance made non-increasing down the default
// order (its running minimum, so w = 0 keeps the default order in every
// profile) and prior is in [0, 1]:
//
//   - recency: exp(-age/τ), age the days from the note's event time to
//     the newest note's of its namespace (a set whose notes carry no time
//     has no recency to read and is left out of the choice);
//   - frequency: log(1+c)/log(1+max c), c the times the note was among
//     the first K of the tuning queries' default searches, the usage a
//     store could count (for a tuning query its own search is left out).
//
// (w, τ) is chosen on the tuning halves (recall@K, a mean over the sets
// it can change, each weighing alike); the held-out halves only report it.

// PriorDepth is how deep each default search is read for the priors.
const PriorDepth = 50

// priorGrid are the weights tried; recencyDays the decay times.
var (
	priorGrid   = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.4}
	recencyDays = []float64{7, 30, 90, 365}
)

type priorHit struct {
	id    string
	base  float64
	age   float64 // days before the namespace's newest note
	units []string
}

type priorQuery struct {
	set, space, kind string
	heldOut          bool
	relevant         []string
	hits             []priorHit
}

// collectPriors reads every answered query's default search of set.
func collectPriors(ctx context.Context, mem *memory.Memory, set Set) ([]priorQuery, error) {
	var out []priorQuery
	for _, sp := range set.Spaces {
		ns := suiteNamespace(set, sp)
		var newest time.Time
		for _, n := range sp.Notes {
			if n.Time.After(newest) {
				newest = n.Time
			}
		}
		for _, q := range sp.Queries {
			if len(q.Relevant) == 0 {
				continue
			}
			rs, err := mem.Search(ctx, amem.SearchRequest{Namespace: ns, Query: q.Text, K: PriorDepth, LinkBudget: -1})
			if err != nil {
				return nil, fmt.Errorf("%q: %w", q.Text, err)
			}
			pq := priorQuery{set: set.Name, space: sp.Name, kind: q.Kind, heldOut: HeldOut(q.Key), relevant: q.Relevant}
			base := math.Inf(1)
			for _, r := range rs {
				base = min(base, r.Score)
				age := 0.0
				if !newest.IsZero() {
					age = max(0, newest.Sub(r.Note.EventTime).Hours()/24)
				}
				pq.hits = append(pq.hits, priorHit{id: r.Note.ID, base: base, age: age, units: strings.Fields(r.Note.Metadata["units"])})
			}
			out = append(out, pq)
		}
	}
	return out, nil
}

// PriorRow is one set's held-out (or tuning) figures without and with a
// prior.
type PriorRow struct {
	Set   string `json:"set"`
	Half  string `json:"half"`
	Kind  string `json:"kind,omitempty"` // a LoCoMo category, or all
	N     int    `json:"n"`
	Prior string `json:"prior"`
	// Recall is recall@K and MRR without the prior (Base) and with it.
	BaseRecall float64 `json:"base_recall"`
	Recall     float64 `json:"recall"`
	BaseMRR    float64 `json:"base_mrr"`
	MRR        float64 `json:"mrr"`
}

// PriorResults are what the priors analysis chose and measured.
type PriorResults struct {
	K int `json:"k"`
	// Recency and Frequency are the choices on the tuning halves: weight
	// and, for recency, decay in days; Grid every tuning figure tried.
	RecencyWeight   float64            `json:"recency_weight"`
	RecencyDays     float64            `json:"recency_days"`
	FrequencyWeight float64            `json:"frequency_weight"`
	Grid            map[string]float64 `json:"tuning_grid"`
	Rows            []PriorRow         `json:"rows"`
}

// priorFn gives a hit's prior for one query.
type priorFn func(q priorQuery, h priorHit) float64

// reorder returns q's hits' units ordered by base + w·prior.
func reorder(q priorQuery, w float64, prior priorFn) [][]string {
	hs := slices.Clone(q.hits)
	if w != 0 {
		score := make(map[string]float64, len(hs))
		for _, h := range hs {
			score[h.id] = h.base + w*prior(q, h)
		}
		slices.SortStableFunc(hs, func(a, b priorHit) int { return cmp.Compare(score[b.id], score[a.id]) })
	}
	out := make([][]string, len(hs))
	for i, h := range hs {
		out[i] = h.units
	}
	return out
}

// frequencyPrior counts how often each note was among the first k of the
// tuning queries' searches; for a tuning query its own search is left out.
func frequencyPrior(qs []priorQuery, k int) priorFn {
	count := map[string]map[string]int{} // space -> note -> count
	for _, q := range qs {
		if q.heldOut {
			continue
		}
		key := q.set + "/" + q.space
		if count[key] == nil {
			count[key] = map[string]int{}
		}
		for _, h := range q.hits[:min(k, len(q.hits))] {
			count[key][h.id]++
		}
	}
	most := map[string]int{}
	for key, c := range count {
		for _, n := range c {
			most[key] = max(most[key], n)
		}
	}
	return func(q priorQuery, h priorHit) float64 {
		key := q.set + "/" + q.space
		c := count[key][h.id]
		if !q.heldOut && slices.ContainsFunc(q.hits[:min(k, len(q.hits))], func(x priorHit) bool { return x.id == h.id }) {
			c-- // its own search is not usage it could have seen
		}
		if c <= 0 || most[key] <= 1 {
			return 0
		}
		return math.Log1p(float64(c)) / math.Log1p(float64(most[key]))
	}
}

func recencyPrior(days float64) priorFn {
	return func(_ priorQuery, h priorHit) float64 { return math.Exp(-h.age / days) }
}

// hasAges reports whether some hit of the set's queries has an age.
func hasAges(qs []priorQuery, set string) bool {
	for _, q := range qs {
		if q.set == set {
			for _, h := range q.hits {
				if h.age > 0 {
					return true
				}
			}
		}
	}
	return false
}

// tuningRecall is recall@k over the tuning queries of the sets keep
// passes, a mean within each set, the sets weighing alike.
func tuningRecall(qs []priorQuery, k int, keep func(set string) bool, w float64, prior priorFn) float64 {
	return meanOverSets(qs, func(q priorQuery) string { return q.set },
		func(q priorQuery) bool { return !q.heldOut && keep(q.set) },
		func(q priorQuery) float64 { return recallAt(reorder(q, w, prior), q.relevant, k) })
}

// AnalysePriors chooses each prior's weight on the tuning halves (0, no
// prior, if none helps) and reports both halves of every set, LoCoMo's
// temporal questions apart, with the prior's best setting of weight > 0
// on the tuning halves: what it costs or gains where it is not chosen.
func AnalysePriors(qs []priorQuery, k int) PriorResults {
	res := PriorResults{K: k, Grid: map[string]float64{}}
	timed := func(set string) bool { return hasAges(qs, set) }
	all := func(string) bool { return true }
	type setting struct {
		name  string
		w     float64
		days  float64
		prior priorFn
		r     float64
	}
	var bestRec, bestFreq setting
	bestRec.r, bestFreq.r = math.Inf(-1), math.Inf(-1)
	for _, d := range recencyDays {
		for _, w := range priorGrid {
			p := recencyPrior(d)
			r := tuningRecall(qs, k, timed, w, p)
			res.Grid[fmt.Sprintf("recency w %.2f τ %.0fd", w, d)] = r
			if r > bestRec.r+1e-9 {
				bestRec = setting{fmt.Sprintf("recency (w %.2f, τ %.0f days)", w, d), w, d, p, r}
			}
		}
	}
	freq := frequencyPrior(qs, k)
	for _, w := range priorGrid {
		r := tuningRecall(qs, k, all, w, freq)
		res.Grid[fmt.Sprintf("frequency w %.2f", w)] = r
		if r > bestFreq.r+1e-9 {
			bestFreq = setting{fmt.Sprintf("frequency (w %.2f)", w), w, 0, freq, r}
		}
	}
	noneTimed, noneAll := tuningRecall(qs, k, timed, 0, nil), tuningRecall(qs, k, all, 0, nil)
	res.Grid["none (sets with times)"] = noneTimed
	res.Grid["none (all sets)"] = noneAll
	if bestRec.r > noneTimed+1e-9 {
		res.RecencyWeight, res.RecencyDays = bestRec.w, bestRec.days
	}
	if bestFreq.r > noneAll+1e-9 {
		res.FrequencyWeight = bestFreq.w
	}
	var sets []string
	for _, q := range qs {
		if !slices.Contains(sets, q.set) {
			sets = append(sets, q.set)
		}
	}
	for _, c := range []setting{bestRec, bestFreq} {
		for _, set := range sets {
			for _, half := range []string{HalfHeldOut, HalfTuning} {
				for _, kind := range []string{"", "temporal"} {
					row := PriorRow{Set: set, Half: half, Kind: kind, Prior: c.name}
					for _, q := range qs {
						if q.set != set || q.heldOut != (half == HalfHeldOut) || (kind != "" && q.kind != kind) {
							continue
						}
						base := reorder(q, 0, nil)
						with := reorder(q, c.w, c.prior)
						row.N++
						row.BaseRecall += recallAt(base, q.relevant, k)
						row.Recall += recallAt(with, q.relevant, k)
						row.BaseMRR += reciprocalRank(base, q.relevant)
						row.MRR += reciprocalRank(with, q.relevant)
					}
					if row.N == 0 {
						continue
					}
					n := float64(row.N)
					row.BaseRecall, row.Recall, row.BaseMRR, row.MRR = row.BaseRecall/n, row.Recall/n, row.BaseMRR/n, row.MRR/n
					if row.Kind == "" {
						row.Kind = "all"
					}
					res.Rows = append(res.Rows, row)
				}
			}
		}
	}
	return res
}

// WriteTable writes the choices and the rows as a Markdown table.
func (r PriorResults) WriteTable(w io.Writer) {
	keys := make([]string, 0, len(r.Grid))
	for key := range r.Grid {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	fmt.Fprintf(w, "priors on the tuning halves, recall@%d (a mean over sets):\n", r.K)
	for _, key := range keys {
		fmt.Fprintf(w, "  %s: %.4f\n", key, r.Grid[key])
	}
	fmt.Fprintf(w, "chosen: recency w %.2f (τ %.0f days), frequency w %.2f (0: the prior does not help and is not used)\n", r.RecencyWeight, r.RecencyDays, r.FrequencyWeight)
	fmt.Fprintf(w, "each prior at its best weight above 0 on the tuning halves:\n")
	fmt.Fprintf(w, "\n| prior | set | half | questions | n | recall@%d without | with | MRR without | with |\n|---|---|---|---|---|---|---|---|---|\n", r.K)
	for _, row := range r.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %.3f | %.3f | %.3f | %.3f |\n",
			row.Prior, row.Set, row.Half, row.Kind, row.N, row.BaseRecall, row.Recall, row.BaseMRR, row.MRR)
	}
}
