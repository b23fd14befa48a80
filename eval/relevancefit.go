package eval

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

// Fitting the relevance curves (amem.Relevance) on the tuning halves of
// the suite's sets. Each query's hybrid candidates are measured (their
// cosine and full-text share; memory.Memory.SearchCandidates) and labelled
// by whether they cover a relevant unit; a query nothing answers gives
// only negatives, which is what teaches the curves a floor. Then:
//
//  1. The general profile's order, a weighted sum (1-ρ)·cosine + ρ·share,
//     is chosen by ρ on a grid, by recall@K over the tuning queries of
//     the sets that search in the general profile (a mean over sets, each
//     weighing alike).
//  2. Each curve is a logistic regression, fitted by Newton's method on
//     every set's tuning candidates, each set weighing alike and within
//     it each query: vector on the cosine, lexical on the share, hybrid
//     on the sum chosen in 1.

// fitRow is one measured candidate of one query.
type fitRow struct {
	cos, share float64
	exact      bool
	relevant   bool
	units      []string
}

// fitQuery is one query's candidates, in the general profile's order.
type fitQuery struct {
	set      string
	general  bool // the set's namespaces search in the general profile
	heldOut  bool
	relevant []string
	rows     []fitRow
}

// collectFit measures the candidates of every query of set.
func collectFit(ctx context.Context, mem *memory.Memory, set Set) ([]fitQuery, error) {
	var out []fitQuery
	for _, sp := range set.Spaces {
		ns := suiteNamespace(set, sp)
		prof, err := mem.SearchProfile(ctx, ns, "")
		if err != nil {
			return nil, err
		}
		notes := map[string][]string{}
		for _, q := range sp.Queries {
			cands, err := mem.SearchCandidates(ctx, amem.SearchRequest{Namespace: ns, Query: q.Text})
			if err != nil {
				return nil, err
			}
			fq := fitQuery{set: set.Name, general: prof.Profile == amem.ProfileGeneral, heldOut: HeldOut(q.Key), relevant: q.Relevant}
			var missing []string
			for _, c := range cands {
				if _, ok := notes[c.ID]; !ok {
					missing = append(missing, c.ID)
				}
			}
			if err := unitsOf(ctx, mem, ns, missing, notes); err != nil {
				return nil, err
			}
			for _, c := range cands {
				us := notes[c.ID]
				rel := false
				for _, u := range us {
					rel = rel || slices.Contains(q.Relevant, u)
				}
				fq.rows = append(fq.rows, fitRow{cos: c.Cosine, share: c.Share, exact: c.Exact, relevant: rel, units: us})
			}
			out = append(out, fq)
		}
	}
	return out, nil
}

// unitsOf reads the evidence units of the notes ids into units.
func unitsOf(ctx context.Context, mem *memory.Memory, ns string, ids []string, units map[string][]string) error {
	for _, id := range ids {
		n, err := mem.Get(ctx, ns, id)
		if err != nil {
			return err
		}
		units[id] = strings.Fields(n.Metadata["units"])
	}
	return nil
}

// RelevanceFit is what FitRelevance chose and how its curves fare.
type RelevanceFit struct {
	Relevance memory.Relevance `json:"relevance"`
	// Rho is the share's weight in the general profile's order; Grid
	// maps each ρ tried to its tuning recall@K, a mean over the general
	// sets.
	Rho  float64             `json:"rho"`
	Grid map[string]float64  `json:"grid"`
	Sets []string            `json:"general_sets"`
	Cal  []CalibrationBucket `json:"held_out_calibration"`
	// Irrelevant are the best hybrid relevances of the tuning queries
	// nothing answers, highest first; Relevant the hybrid relevances of
	// the relevant notes among each answered tuning query's first K by
	// the general order, lowest first: what a floor is chosen from.
	Irrelevant []float64 `json:"irrelevant_top"`
	Relevant   []float64 `json:"relevant_in_top_k"`
}

// CalibrationBucket compares the hybrid curve's probability with how
// often held-out candidates in its range were relevant.
type CalibrationBucket struct {
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	N         int     `json:"n"`
	Predicted float64 `json:"predicted"`
	Relevant  float64 `json:"relevant"`
}

// FitRelevance fits the curves on the tuning queries of qs.
func FitRelevance(qs []fitQuery, k int) RelevanceFit {
	var fit RelevanceFit
	fit.Grid = map[string]float64{}
	general := map[string]bool{}
	for _, q := range qs {
		if q.general && !q.heldOut {
			general[q.set] = true
		}
	}
	for s := range general {
		fit.Sets = append(fit.Sets, s)
	}
	slices.Sort(fit.Sets)
	best := math.Inf(-1)
	for i := 0; i <= 20; i++ {
		rho := float64(i) / 20
		r := meanOverSets(qs, func(q fitQuery) string { return q.set }, func(q fitQuery) bool { return q.general && !q.heldOut && len(q.relevant) > 0 }, func(q fitQuery) float64 {
			return orderedRecall(q, rho, k)
		})
		fit.Grid[fmt.Sprintf("%.2f", rho)] = r
		if r > best+1e-12 {
			best, fit.Rho = r, rho
		}
	}
	tuning := func(q fitQuery) bool { return !q.heldOut }
	fit.Relevance.Vector = logistic(qs, tuning, func(r fitRow) (float64, float64) { return r.cos, 0 }, 1, 0)
	fit.Relevance.Lexical = logistic(qs, tuning, func(r fitRow) (float64, float64) { return 0, r.share }, 0, 1)
	fit.Relevance.Hybrid = logistic(qs, tuning, func(r fitRow) (float64, float64) { return r.cos, r.share }, 1-fit.Rho, fit.Rho)

	for _, q := range qs {
		if q.heldOut {
			continue
		}
		rows := slices.Clone(q.rows)
		slices.SortStableFunc(rows, func(a, b fitRow) int {
			return cmp.Compare(fit.Relevance.Hybrid.Prob(b.cos, b.share), fit.Relevance.Hybrid.Prob(a.cos, a.share))
		})
		if len(q.relevant) == 0 {
			if len(rows) > 0 {
				fit.Irrelevant = append(fit.Irrelevant, fit.Relevance.Hybrid.Prob(rows[0].cos, rows[0].share))
			}
			continue
		}
		for _, r := range rows[:min(k, len(rows))] {
			if r.relevant {
				fit.Relevant = append(fit.Relevant, fit.Relevance.Hybrid.Prob(r.cos, r.share))
			}
		}
	}
	slices.Sort(fit.Relevant)
	slices.Sort(fit.Irrelevant)
	slices.Reverse(fit.Irrelevant)

	// Held-out calibration of the hybrid curve.
	edges := []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0001}
	for i := range len(edges) - 1 {
		fit.Cal = append(fit.Cal, CalibrationBucket{From: edges[i], To: min(edges[i+1], 1)})
	}
	for _, q := range qs {
		if !q.heldOut {
			continue
		}
		for _, r := range q.rows {
			p := fit.Relevance.Hybrid.Prob(r.cos, r.share)
			for i := range fit.Cal {
				if p >= edges[i] && p < edges[i+1] {
					b := &fit.Cal[i]
					b.N++
					b.Predicted += p
					if r.relevant {
						b.Relevant++
					}
				}
			}
		}
	}
	for i := range fit.Cal {
		if b := &fit.Cal[i]; b.N > 0 {
			b.Predicted /= float64(b.N)
			b.Relevant /= float64(b.N)
		}
	}
	return fit
}

// orderedRecall is a query's recall@k when its candidates are ordered,
// the exact ones first, by (1-rho)·cosine + rho·share.
func orderedRecall(q fitQuery, rho float64, k int) float64 {
	rows := slices.Clone(q.rows)
	slices.SortStableFunc(rows, func(a, b fitRow) int {
		if a.exact != b.exact {
			if a.exact {
				return -1
			}
			return 1
		}
		return cmp.Compare((1-rho)*b.cos+rho*b.share, (1-rho)*a.cos+rho*a.share)
	})
	hits := make([][]string, len(rows))
	for i, r := range rows {
		hits[i] = r.units
	}
	return recallAt(hits, q.relevant, k)
}

// meanOverSets is the mean of f over the queries keep passes, a mean
// within each set (set names a query's) first, the sets weighing alike.
func meanOverSets[Q any](qs []Q, set func(Q) string, keep func(Q) bool, f func(Q) float64) float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, q := range qs {
		if keep(q) {
			sum[set(q)] += f(q)
			n[set(q)]++
		}
	}
	if len(n) == 0 {
		return 0
	}
	total := 0.0
	for s := range n {
		total += sum[s] / float64(n[s])
	}
	return total / float64(len(n))
}

// logistic fits P(relevant) = σ(a + s·(wc·cos + ws·share)) by Newton's
// method over the rows of the queries keep passes, each set weighing
// alike and each query within its set; it returns the curve with
// Cosine = s·wc and Words = s·ws.
func logistic(qs []fitQuery, keep func(fitQuery) bool, x func(fitRow) (cos, share float64), wc, ws float64) memory.Logistic {
	type row struct{ z, y, w float64 }
	var rows []row
	perSet := map[string]int{}
	for _, q := range qs {
		if keep(q) && len(q.rows) > 0 {
			perSet[q.set]++
		}
	}
	for _, q := range qs {
		if !keep(q) || len(q.rows) == 0 {
			continue
		}
		w := 1 / float64(perSet[q.set]*len(q.rows))
		for _, r := range q.rows {
			c, s := x(r)
			y := 0.0
			if r.relevant {
				y = 1
			}
			rows = append(rows, row{z: wc*c + ws*s, y: y, w: w})
		}
	}
	a, s := 0.0, 1.0
	const ridge = 1e-6
	for range 100 {
		var ga, gs, haa, has, hss float64
		for _, r := range rows {
			p := 1 / (1 + math.Exp(-(a + s*r.z)))
			d := r.w * (p - r.y)
			ga += d
			gs += d * r.z
			h := r.w * p * (1 - p)
			haa += h
			has += h * r.z
			hss += h * r.z * r.z
		}
		haa += ridge
		hss += ridge
		det := haa*hss - has*has
		if det <= 0 {
			break
		}
		da := (hss*ga - has*gs) / det
		ds := (haa*gs - has*ga) / det
		a, s = a-da, s-ds
		if math.Abs(da)+math.Abs(ds) < 1e-10 {
			break
		}
	}
	s = max(s, 0) // a curve never falls as its evidence rises
	return memory.Logistic{Bias: a, Cosine: s * wc, Words: s * ws}
}

// WriteTable writes the fit's choice, grid and calibration.
func (f RelevanceFit) WriteTable(w io.Writer, k int) {
	fmt.Fprintf(w, "relevance fit on the tuning halves: general order (1-ρ)·cosine + ρ·share with ρ = %.2f (recall@%d, mean over %v)\n", f.Rho, k, f.Sets)
	keys := make([]string, 0, len(f.Grid))
	for key := range f.Grid {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		fmt.Fprintf(w, "  ρ %s: %.4f\n", key, f.Grid[key])
	}
	r := f.Relevance
	fmt.Fprintf(w, "curves: vector σ(%.3f + %.3f·cos), lexical σ(%.3f + %.3f·share), hybrid σ(%.3f + %.3f·cos + %.3f·share)\n",
		r.Vector.Bias, r.Vector.Cosine, r.Lexical.Bias, r.Lexical.Words, r.Hybrid.Bias, r.Hybrid.Cosine, r.Hybrid.Words)
	fmt.Fprintf(w, "tuning queries nothing answers (%d), their best relevance: %s\n", len(f.Irrelevant), fmtFloats(f.Irrelevant))
	if n := len(f.Relevant); n > 0 {
		fmt.Fprintf(w, "relevant notes in the first %d of tuning queries (%d): relevance quantiles 1%% %.3f, 5%% %.3f, 10%% %.3f, 25%% %.3f, 50%% %.3f\n",
			k, n, f.Relevant[n/100], f.Relevant[n/20], f.Relevant[n/10], f.Relevant[n/4], f.Relevant[n/2])
	}
	fmt.Fprintln(w, "held-out calibration of the hybrid curve (every candidate of every held-out query):")
	for _, b := range f.Cal {
		fmt.Fprintf(w, "  [%.2f, %.2f): n %d, predicted %.3f, relevant %.3f\n", b.From, b.To, b.N, b.Predicted, b.Relevant)
	}
}

func fmtFloats(xs []float64) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%.3f", x)
	}
	return b.String()
}
