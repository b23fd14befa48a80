package eval

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
)

// A paired comparison asks whether a change moved a set's recall or only
// reshuffled which queries it answers. Two suite runs score the same
// queries, so each query's recall difference is one paired sample; the
// mean difference comes with a bootstrap interval over queries. With 156
// held-out questions one question moves recall@10 by up to 0.0064, so a
// difference of a few thousandths in the table alone says nothing
// either way; the interval says how large a change the run could have
// missed.

// PairedRow compares one set, mode and half of two runs on the queries
// both scored.
type PairedRow struct {
	Set  string `json:"set"`
	Mode string `json:"mode"`
	Half string `json:"half"`
	// N queries both runs scored; Better and Worse count those whose
	// recall rose or fell.
	N      int `json:"n"`
	Better int `json:"better"`
	Worse  int `json:"worse"`
	// Before and After are the mean recall@K of the N queries; Diff is
	// After - Before, and Low and High bound its 95% bootstrap interval.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Diff   float64 `json:"diff"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
}

// Verdict reads the interval: "higher" or "lower" when it excludes no
// change, else "no difference measured".
func (r PairedRow) Verdict() string {
	switch {
	case r.Low > 0:
		return "higher"
	case r.High < 0:
		return "lower"
	}
	return "no difference measured"
}

// PairedResamples is how many bootstrap resamples Paired draws.
const PairedResamples = 4000

// Paired compares before and after query by query. The resampling is
// seeded, so a comparison reads the same every time it is run.
func Paired(before, after *SuiteResults) ([]PairedRow, error) {
	if len(before.Queries) == 0 || len(after.Queries) == 0 {
		return nil, errors.New("a results file holds no per-query figures (written by amem-eval suite --out before they were kept); run the suite again")
	}
	if before.K != after.K {
		return nil, fmt.Errorf("the runs measured recall at different depths (%d and %d)", before.K, after.K)
	}
	type group struct{ set, mode, half string }
	key := func(q QueryScore) [4]string { return [4]string{q.Set, q.Mode, q.Half, q.Key} }
	prior := make(map[[4]string]float64, len(before.Queries))
	for _, q := range before.Queries {
		prior[key(q)] = q.Recall
	}
	diffs := map[group][]float64{}
	rows := map[group]*PairedRow{}
	var order []group
	for _, q := range after.Queries {
		b, ok := prior[key(q)]
		if !ok {
			continue
		}
		g := group{q.Set, q.Mode, q.Half}
		r := rows[g]
		if r == nil {
			r = &PairedRow{Set: q.Set, Mode: q.Mode, Half: q.Half}
			rows[g] = r
			order = append(order, g)
		}
		d := q.Recall - b
		diffs[g] = append(diffs[g], d)
		r.N++
		r.Before += b
		r.After += q.Recall
		switch {
		case d > 1e-12:
			r.Better++
		case d < -1e-12:
			r.Worse++
		}
	}
	if len(order) == 0 {
		return nil, errors.New("the two runs share no query of the same set, mode and half")
	}
	// Each set and mode as the after run has them, its held-out half
	// first: that is the half to report.
	first := map[[2]string]int{}
	for _, g := range order {
		if _, ok := first[[2]string{g.set, g.mode}]; !ok {
			first[[2]string{g.set, g.mode}] = len(first)
		}
	}
	slices.SortStableFunc(order, func(a, b group) int {
		if c := cmp.Compare(first[[2]string{a.set, a.mode}], first[[2]string{b.set, b.mode}]); c != 0 {
			return c
		}
		return cmp.Compare(halfOrder(a.half), halfOrder(b.half))
	})
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]PairedRow, 0, len(order))
	for _, g := range order {
		r := rows[g]
		n := float64(r.N)
		r.Before /= n
		r.After /= n
		r.Diff = r.After - r.Before
		r.Low, r.High = bootstrapMean(diffs[g], PairedResamples, rng)
		out = append(out, *r)
	}
	return out, nil
}

func halfOrder(h string) int {
	if h == HalfHeldOut {
		return 0
	}
	return 1
}

// bootstrapMean is the 95% percentile interval of the mean of xs over
// resamples drawn with replacement.
func bootstrapMean(xs []float64, resamples int, rng *rand.Rand) (low, high float64) {
	means := make([]float64, resamples)
	for i := range means {
		var s float64
		for range xs {
			s += xs[rng.IntN(len(xs))]
		}
		means[i] = s / float64(len(xs))
	}
	slices.SortFunc(means, cmp.Compare)
	return means[int(0.025*float64(resamples))], means[int(0.975*float64(resamples))-1]
}

// WritePairedTable writes the comparison as a Markdown table.
func WritePairedTable(w io.Writer, rows []PairedRow, k int) {
	fmt.Fprintf(w, "| set | half | mode | n | better | worse | recall@%d before | after | difference (95%% interval) | verdict |\n|---|---|---|---|---|---|---|---|---|---|\n", k)
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %.3f | %.3f | %+.4f (%+.4f, %+.4f) | %s |\n",
			r.Set, r.Half, r.Mode, r.N, r.Better, r.Worse, r.Before, r.After, r.Diff, r.Low, r.High, r.Verdict())
	}
}
