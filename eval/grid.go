package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/offline"
)

// GridParam is one tuned constant and the values cross-validation picks
// it from.
type GridParam struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
	// Shipped is the value the in-sample figure ran with.
	Shipped string `json:"shipped"`
	// Ingest says that the constant acts when notes are written: each of
	// its values costs an ingest of every conversation.
	Ingest bool `json:"ingest,omitempty"`
}

// Setting is one grid point: a value for each constant of the grid.
type Setting map[string]string

// String is the setting in a stable order: "lexical-weight=4 link-order=after".
func (s Setting) String() string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + s[n]
	}
	return strings.Join(parts, " ")
}

// tunable is a constant cross-validation knows how to vary.
type tunable struct {
	name   string
	ingest bool
	// check returns the canonical form of a value, or why it is bad.
	check   func(string) (string, error)
	shipped func(cfg *Config) string
	applies func(cfg *Config, m Mode) bool
	// search sets the value on a search (search-time constants); curator
	// on the offline curator's options (ingest-time ones).
	search  func(req *request, v string)
	curator func(o *offline.Options, v string)
}

// tunables are the constants that were chosen by measuring on LoCoMo's
// development split and that a run can choose again (see the package
// documentation for the ones it cannot).
var tunables = []tunable{
	{
		name: "lexical-weight", check: positiveFloat,
		shipped: func(cfg *Config) string { return formatFloat(cfg.LexicalWeight) },
		applies: func(cfg *Config, m Mode) bool { return m.ingest() != ingestRaw && cfg.Search == amem.SearchHybrid },
		search:  func(req *request, v string) { req.tune.LexicalWeight = mustFloat(v) },
	},
	{
		name: "link-order", check: linkOrder,
		shipped: func(*Config) string { return string(amem.LinksAfter) },
		applies: linksApply,
		search:  func(req *request, v string) { req.LinkOrder = amem.LinkOrder(v) },
	},
	{
		name: "links-per-hit", check: positiveInt,
		shipped: func(*Config) string { return strconv.Itoa(memory.DefaultLinksPerHit) },
		applies: linksApply,
		search:  func(req *request, v string) { req.LinksPerHit = int(mustFloat(v)) },
	},
	extraRanking("reply-weight", func(c *Config) float64 { return c.ReplyWeight }, func(r *request) *float64 { return &r.tune.ReplyWeight }),
	extraRanking("feedback-weight", func(c *Config) float64 { return c.FeedbackWeight }, func(r *request) *float64 { return &r.tune.FeedbackWeight }),
	extraRanking("dense-feedback-weight", func(c *Config) float64 { return c.DenseFeedbackWeight }, func(r *request) *float64 { return &r.tune.DenseFeedbackWeight }),
	{
		name: "day-spread", check: spreadValue,
		shipped: func(cfg *Config) string { return formatFloat(cfg.DaySpread) },
		applies: func(cfg *Config, m Mode) bool { return m.ingest() != ingestRaw && cfg.Search == amem.SearchHybrid },
		search:  func(req *request, v string) { req.tune.DaySpread = offIfZero(mustFloat(v)) },
	},
	offlineThreshold("link-min-similarity", func(o *offline.Options) *float64 { return &o.LinkMinSimilarity }),
	offlineThreshold("link-min-strength", func(o *offline.Options) *float64 { return &o.LinkMinStrength }),
	offlineThreshold("evolve-min-strength", func(o *offline.Options) *float64 { return &o.EvolveMinStrength }),
}

// DefaultGrid is what --cv varies without --cv-grid: the search-time
// constants chosen on the development split, at a few of the values they
// were chosen from (24 points: each costs a search per question). It
// needs no ingest beyond the run's own.
func DefaultGrid() []GridParam {
	return []GridParam{
		{Name: "lexical-weight", Values: []string{"2", "4", "8"}},
		{Name: "link-order", Values: []string{string(amem.LinksAfter), string(amem.LinksInterleaved)}},
		{Name: "reply-weight", Values: []string{"0", "1.5"}},
		{Name: "feedback-weight", Values: []string{"0", "2"}},
	}
}

// extraRanking is the weight of one of hybrid search's extra rankings
// (memory.Options.Search.ReplyWeight and the rest), where 0 is off: cfg's
// value is the shipped one, field the request's override.
func extraRanking(name string, shipped func(*Config) float64, field func(*request) *float64) tunable {
	return tunable{
		name: name, check: nonNegativeFloat,
		shipped: func(cfg *Config) string { return formatFloat(shipped(cfg)) },
		applies: func(cfg *Config, m Mode) bool { return m.ingest() != ingestRaw && cfg.Search == amem.SearchHybrid },
		search:  func(req *request, v string) { *field(req) = offIfZero(mustFloat(v)) },
	}
}

// offlineThreshold is an ingest-time cosine threshold of the offline
// curator, field picking it out of the options.
func offlineThreshold(name string, field func(*offline.Options) *float64) tunable {
	return tunable{
		name: name, ingest: true, check: positiveFloat,
		shipped: func(*Config) string {
			o := (&offline.Options{}).Defaults()
			return formatFloat(*field(&o))
		},
		applies: func(_ *Config, m Mode) bool { return m.ingest() != ingestRaw },
		curator: func(o *offline.Options, v string) { *field(o) = mustFloat(v) },
	}
}

func linksApply(_ *Config, m Mode) bool { return m == ModeAMem || m == ModeNoEvo }

func findTunable(name string) (tunable, bool) {
	for _, t := range tunables {
		if t.name == name {
			return t, true
		}
	}
	return tunable{}, false
}

// ParseGrid reads --cv-grid values, each "NAME=V1,V2,...".
func ParseGrid(specs []string) ([]GridParam, error) {
	var grid []GridParam
	for _, spec := range specs {
		name, list, ok := strings.Cut(spec, "=")
		name = strings.TrimSpace(name)
		t, known := findTunable(name)
		if !known {
			names := make([]string, len(tunables))
			for i, t := range tunables {
				names[i] = t.name
			}
			return nil, fmt.Errorf("grid %q: unknown constant %q; use one of %s", spec, name, strings.Join(names, ", "))
		}
		if !ok || strings.TrimSpace(list) == "" {
			return nil, fmt.Errorf("grid %q: no values; write %s=V1,V2,...", spec, name)
		}
		if slices.ContainsFunc(grid, func(p GridParam) bool { return p.Name == name }) {
			return nil, fmt.Errorf("grid %q: %s is given twice", spec, name)
		}
		p := GridParam{Name: name, Ingest: t.ingest}
		for _, v := range strings.Split(list, ",") {
			c, err := t.check(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("grid %q: %w", spec, err)
			}
			if slices.Contains(p.Values, c) {
				return nil, fmt.Errorf("grid %q: %s is listed twice", spec, c)
			}
			p.Values = append(p.Values, c)
		}
		grid = append(grid, p)
	}
	return grid, nil
}

// points lists every combination of the params' values, the first
// param's varying slowest.
func points(params []GridParam) []Setting {
	out := []Setting{{}}
	for _, p := range params {
		var next []Setting
		for _, s := range out {
			for _, v := range p.Values {
				n := Setting{p.Name: v}
				for k, x := range s {
					n[k] = x
				}
				next = append(next, n)
			}
		}
		out = next
	}
	return out
}

func positiveFloat(s string) (string, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return "", fmt.Errorf("%q is not a positive number", s)
	}
	return formatFloat(f), nil
}

func nonNegativeFloat(s string) (string, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("%q is not a number 0 or above", s)
	}
	return formatFloat(f), nil
}

func spreadValue(s string) (string, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f >= 1 {
		return "", fmt.Errorf("day spread %q: use a number from 0 (off) to below 1", s)
	}
	return formatFloat(f), nil
}

func positiveInt(s string) (string, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return "", fmt.Errorf("%q is not a positive whole number", s)
	}
	return strconv.Itoa(n), nil
}

func linkOrder(s string) (string, error) {
	if s != string(amem.LinksAfter) && s != string(amem.LinksInterleaved) {
		return "", fmt.Errorf("link order %q: use %s or %s", s, amem.LinksAfter, amem.LinksInterleaved)
	}
	return s, nil
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// mustFloat reads a value check has already accepted.
func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(fmt.Sprintf("eval: grid value %q was not checked: %v", s, err))
	}
	return f
}
