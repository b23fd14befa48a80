package eval

import (
	"fmt"
	"io"
	"strings"
)

// writeTable writes the cross-validated figures beside the in-sample ones,
// then each fold: what it chose and how the held-out conversation fared.
func (cv *CVReport) writeTable(w io.Writer, k int) {
	at := fmt.Sprintf("recall@%d", k)
	for _, mc := range cv.Modes {
		byFusion := ""
		if len(cv.Ranker) > 0 {
			byFusion = "; every search of the grid, and its in-sample figure, by fusion alone (the learned ranker is cross-validated below)"
		}
		fmt.Fprintf(w, "%s, leave one conversation out (%d folds): each fold chooses %s among %d grid points by %s, and is scored on the held-out conversation%s\n\n",
			mc.Mode, len(mc.Folds), strings.Join(mc.Params, ", "), mc.Points, cv.Criterion, byFusion)
		fmt.Fprintf(w, "| figure | recall@5 | %s | MRR | %s |\n|---|---|---|---|%s\n", at, strings.Join(catHeads(), " | "), strings.Repeat("---|", len(catHeads())))
		row := func(label string, means map[string]map[string]float64) {
			scoreRow(w, label, means, at)
			fmt.Fprintln(w)
		}
		row("in-sample (shipped constants), pooled over questions", mc.InSample.Means)
		row("in-sample, best grid point ("+mc.Best.Setting.String()+")", mc.Best.Scores.Means)
		row("cross-validated, pooled over questions", mc.Pooled.Means)
		row("in-sample (shipped constants), mean over conversations", mc.InSampleMean)
		row("**cross-validated, mean over folds**", mc.Mean)
		fmt.Fprintf(w, "\n(categories: %s over the questions with evidence; the first three columns pool categories 1-4; a mean over conversations weighs each alike, a pooled figure each question)\n\n", at)
		fmt.Fprintf(w, "| held out | n (1-4) | chosen | %s on the others | held-out %s, shipped | held-out %s, chosen | recall@5 | MRR | multi-hop %s |\n|---|---|---|---|---|---|---|---|---|\n", at, at, at, at)
		for _, f := range mc.Folds {
			o := f.Scores.Means["1-4"]
			fmt.Fprintf(w, "| %s | %d | %s | %.3f | %s | %s | %s | %s | %s |\n", f.HeldOut, f.Scores.Counts["1-4"], f.Chosen,
				f.TrainCriterion, cell(f.Shipped.Means["1-4"], at), cell(o, at), cell(o, "recall@5"), cell(o, "mrr"), cell(f.Scores.Means["1"], at))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "cross-validation: %.0f s for the grid's ingests and searches\n\n", cv.Seconds)
	for i := range cv.Ranker {
		cv.Ranker[i].writeTable(w, k)
	}
}

// cell is a metric to three decimals, "-" where it was not measured (a
// category without questions, recall@5 when K is under 5).
func cell(m map[string]float64, metric string) string {
	if v, ok := m[metric]; ok {
		return fmt.Sprintf("%.3f", v)
	}
	return "-"
}

func catHeads() []string {
	out := make([]string, 5)
	for i, c := range categoryKeys[:5] {
		out[i] = categoryLabel(c)
	}
	return out
}

// writeTable writes the ranker's cross-validation: fusion alone
// and with each fold's ranker, per fold, and the ablations.
func (rc *RankerCV) writeTable(w io.Writer, k int) {
	at := fmt.Sprintf("recall@%d", k)
	fmt.Fprintf(w, "%s, learned ranker, leave one conversation out (%d folds): each fold's ranker is trained on the other conversations (%s)\n\n", rc.Mode, len(rc.Folds), rc.Training)
	fmt.Fprintf(w, "| figure | recall@5 | %s | MRR | %s | whole context |\n|---|---|---|---|%s---|\n", at, strings.Join(catHeads(), " | "), strings.Repeat("---|", len(catHeads())))
	row := func(label string, means map[string]map[string]float64) {
		scoreRow(w, label, means, at)
		fmt.Fprintf(w, " %s |\n", cell(means["1-4"], "recall@context"))
	}
	row("fusion only, mean over conversations", rc.FusionMean)
	row("ranker in-sample (trained on every conversation), mean over conversations", rc.InSampleMean)
	row("ranker cross-validated, pooled over questions", rc.Pooled.Means)
	row("**ranker cross-validated, mean over folds**", rc.Mean)
	fmt.Fprintf(w, "\n| held out | n (1-4) | fusion %s | ranker %s | recall@5 | MRR | multi-hop %s | L2 a nested choice takes | training pairs ordered right |\n|---|---|---|---|---|---|---|---|---|\n", at, at, at)
	for _, f := range rc.Folds {
		o := f.Ranked.Means["1-4"]
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %g | %.3f |\n", f.HeldOut, f.Ranked.Counts["1-4"],
			cell(f.Fusion.Means["1-4"], at), cell(o, at), cell(o, "recall@5"), cell(o, "mrr"), cell(f.Ranked.Means["1"], at), f.NestedL2, f.TrainPairs)
	}
	fmt.Fprintf(w, "\n| ranker without | cross-validated %s (direct hits) | %s |\n|---|---|%s\n", at, strings.Join(catHeads(), " | "), strings.Repeat("---|", len(catHeads())))
	for _, ab := range rc.Ablations {
		fmt.Fprintf(w, "| %s | %s |", ab.Without, cell(ab.Mean, "1-4"))
		for _, c := range categoryKeys[:5] {
			fmt.Fprintf(w, " %s |", cell(ab.Mean, c))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nranker cross-validation: %.0f s\n\n", rc.Seconds)
}

// scoreRow writes a CV table row's label, recall@5, recall@k and MRR over
// categories 1-4, and recall@k per category, leaving the line open.
func scoreRow(w io.Writer, label string, means map[string]map[string]float64, at string) {
	o := means["1-4"]
	fmt.Fprintf(w, "| %s | %s | %s | %s |", label, cell(o, "recall@5"), cell(o, at), cell(o, "mrr"))
	for _, c := range categoryKeys[:5] {
		fmt.Fprintf(w, " %s |", cell(means[c], at))
	}
}
