package locomo

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"
	"text/tabwriter"
)

// OverallCategory is the pseudo-category under which an Aggregator reports
// the pooled mean over categories 1-4 (the usual LoCoMo headline number,
// which leaves the adversarial category 5 out).
const OverallCategory = 0

// Aggregator accumulates per-question scores of named metrics and reports
// their means per category and over categories 1-4 together. The overall
// mean pools questions (each question counts once, so categories weigh by
// their size), it is not a mean of category means. The zero value is ready
// to use, and an Aggregator is safe for concurrent use.
type Aggregator struct {
	mu      sync.Mutex
	metrics []string               // in order of first Add
	stats   map[string]map[int]acc // metric -> category -> running sum
}

type acc struct {
	sum float64
	n   int
}

// Row is one line of an Aggregator report.
type Row struct {
	Metric   string
	Category int    // a LoCoMo category, or OverallCategory for 1-4 pooled
	Label    string // "1 multi-hop", ..., "1-4 overall"
	N        int    // number of values
	Mean     float64
}

// Add records one value of metric for a question of the given category.
// NaN values are ignored, and so is category OverallCategory (0), which is
// reserved for the pooled 1-4 mean.
func (a *Aggregator) Add(metric string, category int, value float64) {
	if math.IsNaN(value) || category == OverallCategory {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stats == nil {
		a.stats = make(map[string]map[int]acc)
	}
	m, ok := a.stats[metric]
	if !ok {
		m = make(map[int]acc)
		a.stats[metric] = m
		a.metrics = append(a.metrics, metric)
	}
	s := m[category]
	s.sum += value
	s.n++
	m[category] = s
}

// Mean returns the mean of metric over the questions of a category and
// their number; category OverallCategory pools categories 1-4. It returns
// (0, 0) when there is no value.
func (a *Aggregator) Mean(metric string, category int) (mean float64, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mean(metric, category)
}

func (a *Aggregator) mean(metric string, category int) (float64, int) {
	var s acc
	if category == OverallCategory {
		for c := CategoryMultiHop; c <= CategorySingleHop; c++ {
			x := a.stats[metric][c]
			s.sum += x.sum
			s.n += x.n
		}
	} else {
		s = a.stats[metric][category]
	}
	if s.n == 0 {
		return 0, 0
	}
	return s.sum / float64(s.n), s.n
}

// Overall is Mean(metric, OverallCategory): the pooled mean over
// categories 1-4.
func (a *Aggregator) Overall(metric string) (mean float64, n int) {
	return a.Mean(metric, OverallCategory)
}

// Metrics returns the metric names in the order they were first added.
func (a *Aggregator) Metrics() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.metrics)
}

// Categories returns the categories that have at least one value, ascending.
func (a *Aggregator) Categories() []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.categories()
}

func (a *Aggregator) categories() []int {
	var cs []int
	for _, m := range a.stats {
		for c := range m {
			if !slices.Contains(cs, c) {
				cs = append(cs, c)
			}
		}
	}
	slices.Sort(cs)
	return cs
}

// CategoryLabel is the report label of a category: "1 multi-hop", ...,
// "5 adversarial", and "1-4 overall" for OverallCategory.
func CategoryLabel(c int) string {
	if c == OverallCategory {
		return "1-4 overall"
	}
	return strconv.Itoa(c) + " " + CategoryName(c)
}

// Rows returns the report in a deterministic order: metrics in order of
// first Add; for each, its categories ascending, then the 1-4 overall row
// (present when categories 1-4 have any value).
func (a *Aggregator) Rows() []Row {
	a.mu.Lock()
	defer a.mu.Unlock()
	var rows []Row
	for _, metric := range a.metrics {
		var cs []int
		for c := range a.stats[metric] {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		cs = append(cs, OverallCategory)
		for _, c := range cs {
			mean, n := a.mean(metric, c)
			if n == 0 {
				continue
			}
			rows = append(rows, Row{Metric: metric, Category: c, Label: CategoryLabel(c), N: n, Mean: mean})
		}
	}
	return rows
}

// WriteTable writes the report as an aligned text table: one line per
// metric (in order of first Add), one column per category seen (ascending)
// and a last "1-4 overall" column; cells are "mean (n)" with four decimals,
// "-" where there is no value.
func (a *Aggregator) WriteTable(w io.Writer) error {
	a.mu.Lock()
	cs := append(a.categories(), OverallCategory)
	type line struct {
		metric string
		cells  []string
	}
	lines := make([]line, 0, len(a.metrics))
	for _, metric := range a.metrics {
		l := line{metric: metric}
		for _, c := range cs {
			mean, n := a.mean(metric, c)
			cell := "-"
			if n > 0 {
				cell = fmt.Sprintf("%.4f (%d)", mean, n)
			}
			l.cells = append(l.cells, cell)
		}
		lines = append(lines, l)
	}
	a.mu.Unlock()

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "metric")
	for _, c := range cs {
		fmt.Fprint(tw, "\t"+CategoryLabel(c))
	}
	fmt.Fprintln(tw)
	for _, l := range lines {
		fmt.Fprint(tw, l.metric)
		for _, cell := range l.cells {
			fmt.Fprint(tw, "\t"+cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
