package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/progress"
	"github.com/amem-dev/amem/sqlite"
)

// The suite ingests several sets of memories of different shapes
// (sets.go) with the product's own options and scores every query in
// several search modes, each set's held-out and tuning halves apart. It
// also checks the invariants a search must keep on every set and in every
// mode: a note's exact content as the query returns that note first
// (own-text@1), and the first n hits of a search for n are the first n
// of a search for more (k-prefix).

// SuiteMode is a search the suite runs: a request for the query's
// namespace and text, the rest set by Request.
type SuiteMode struct {
	Name string
	// Request fills in everything but Namespace, Query and K.
	Request amem.SearchRequest
}

// Modes the suite runs by default: each retriever alone, their fusion
// without anything more, and the product's default search.
var (
	SuiteVector  = SuiteMode{Name: "vector", Request: amem.SearchRequest{Mode: amem.SearchVector}}
	SuiteLexical = SuiteMode{Name: "lexical", Request: amem.SearchRequest{Mode: amem.SearchLexical}}
	SuiteFusion  = SuiteMode{Name: "fusion", Request: amem.SearchRequest{
		Mode: amem.SearchHybrid, ReplyWeight: -1, FeedbackWeight: -1, DenseFeedbackWeight: -1, DaySpread: -1, NoRanker: true,
	}}
	SuiteDefault = SuiteMode{Name: "default", Request: amem.SearchRequest{}}
)

// DefaultSuiteModes are the modes of `amem eval suite`.
func DefaultSuiteModes() []SuiteMode {
	return []SuiteMode{SuiteVector, SuiteLexical, SuiteFusion, SuiteDefault}
}

// SuiteConfig says what the suite runs.
type SuiteConfig struct {
	// Options open every store: the product's options (package local's
	// defaults), Embedder and Curator included.
	Options amem.Options
	Modes   []SuiteMode
	// K is the depth of the recall figures (default 10).
	K int
	// PrefixK is the larger search whose first K must be the search's
	// (default 2K at the least 20).
	PrefixK int
	// WorkDir holds the stores (default: a temporary directory).
	WorkDir  string
	Progress io.Writer
	Now      func() time.Time
}

// SuiteResults are a suite's figures, per set, mode and half.
type SuiteResults struct {
	Date    string       `json:"date"`
	K       int          `json:"k"`
	PrefixK int          `json:"prefix_k"`
	Sets    []SetSummary `json:"sets"`
	Rows    []SuiteRow   `json:"rows"`
}

// SetSummary describes one set as run.
type SetSummary struct {
	Name    string  `json:"name"`
	About   string  `json:"about"`
	Notes   int     `json:"notes"`
	Queries int     `json:"queries"`
	HeldOut int     `json:"held_out"`
	Ingest  float64 `json:"ingest_seconds"`
}

// Halves of a set's queries.
const (
	HalfHeldOut = "held-out"
	HalfTuning  = "tuning"
)

// SuiteRow is one set, mode and half: recall and MRR over its queries
// that something answers, and the invariants over all of its queries and
// (own-text) notes.
type SuiteRow struct {
	Set  string `json:"set"`
	Mode string `json:"mode"`
	Half string `json:"half"`
	// N is the number of queries with relevant notes.
	N int `json:"n"`
	// Recall maps "1", "5" and "10" (K) to mean recall at that depth.
	Recall map[string]float64 `json:"recall"`
	MRR    float64            `json:"mrr"`
	// Paraphrase is hit@1 over the half's paraphrase queries, Paraphrases
	// their number (agent set only).
	Paraphrase  float64 `json:"paraphrase_hit1,omitempty"`
	Paraphrases int     `json:"paraphrases,omitempty"`
	// OwnText is the share of the set's notes that their own content as
	// the query returns first (a note with the very same content counts),
	// over OwnTextN notes; reported on the held-out row, as it uses no
	// query.
	OwnText  float64 `json:"own_text_at1,omitempty"`
	OwnTextN int     `json:"own_text_n,omitempty"`
	// Prefix is the share of the half's queries (own-text queries on the
	// held-out row too) whose K hits are the first K of a search for
	// PrefixK, over PrefixN searches.
	Prefix  float64 `json:"k_prefix"`
	PrefixN int     `json:"k_prefix_n"`
	// Misses name up to 5 own-text or k-prefix failures, for a reader.
	Misses []string `json:"misses,omitempty"`
}

// RunSuite ingests every set and scores it in every mode.
func RunSuite(ctx context.Context, sets []Set, cfg SuiteConfig) (*SuiteResults, error) {
	if cfg.Options.Embedder == nil {
		return nil, errors.New("eval: no embedder")
	}
	if cfg.K <= 0 {
		cfg.K = 10
	}
	if cfg.PrefixK <= cfg.K {
		cfg.PrefixK = max(2*cfg.K, 20)
	}
	if len(cfg.Modes) == 0 {
		cfg.Modes = DefaultSuiteModes()
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "amem-suite-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		cfg.WorkDir = dir
	}
	opts := cfg.Options
	opts.Embedder = newQueryCache(opts.Embedder)
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	res := &SuiteResults{Date: cfg.Now().UTC().Format(time.DateOnly), K: cfg.K, PrefixK: cfg.PrefixK}
	for _, set := range sets {
		mem, sum, err := ingestSet(ctx, set, opts, cfg)
		if err != nil {
			return nil, fmt.Errorf("set %s: %w", set.Name, err)
		}
		res.Sets = append(res.Sets, sum)
		for _, mode := range cfg.Modes {
			rows, err := scoreSet(ctx, mem, set, mode, cfg)
			if err != nil {
				mem.Close()
				return nil, fmt.Errorf("set %s, mode %s: %w", set.Name, mode.Name, err)
			}
			res.Rows = append(res.Rows, rows...)
		}
		if err := mem.Close(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// suiteNamespace is the namespace of a set's space.
func suiteNamespace(set Set, sp Space) string {
	return validNamespace(set.Name + "-" + sp.Name)
}

// ingestSet writes a set's notes into a store of its own, through the
// configured curator, in the order given.
func ingestSet(ctx context.Context, set Set, opts amem.Options, cfg SuiteConfig) (*amem.Memory, SetSummary, error) {
	sum := SetSummary{Name: set.Name, About: set.About}
	st, err := sqlite.Open(ctx, filepath.Join(cfg.WorkDir, validNamespace(set.Name)+".db"), nil)
	if err != nil {
		return nil, sum, err
	}
	opts.IndexDir = ""
	mem, err := amem.Open(ctx, st, &opts)
	if err != nil {
		st.Close()
		return nil, sum, err
	}
	total := 0
	for _, sp := range set.Spaces {
		total += len(sp.Notes)
		sum.Queries += len(sp.Queries)
		for _, q := range sp.Queries {
			if HeldOut(q.Key) {
				sum.HeldOut++
			}
		}
	}
	sum.Notes = total
	bar := progress.New(cfg.Progress, "ingest "+set.Name, total, progress.Options{})
	start := cfg.Now()
	for _, sp := range set.Spaces {
		ns := suiteNamespace(set, sp)
		for i, n := range sp.Notes {
			if _, err := mem.Add(ctx, amem.AddRequest{
				Namespace: ns, Content: n.Content, EventTime: n.Time,
				Metadata: map[string]string{"units": strings.Join(n.Units, " ")},
			}); err != nil {
				mem.Close()
				return nil, sum, fmt.Errorf("%s note %d: %w", sp.Name, i, err)
			}
			bar.Add(1)
		}
	}
	bar.Done()
	sum.Ingest = cfg.Now().Sub(start).Seconds()
	return mem, sum, nil
}

// units are the evidence units of a result list, one entry per hit.
func units(rs []amem.Result) [][]string {
	out := make([][]string, len(rs))
	for i, r := range rs {
		out[i] = strings.Fields(r.Note.Metadata["units"])
	}
	return out
}

// recallAt is the share of relevant units that the first k hits cover.
func recallAt(hits [][]string, relevant []string, k int) float64 {
	if len(relevant) == 0 {
		return 0
	}
	covered := map[string]bool{}
	for _, us := range hits[:min(k, len(hits))] {
		for _, u := range us {
			covered[u] = true
		}
	}
	n := 0
	for _, r := range relevant {
		if covered[r] {
			n++
		}
	}
	return float64(n) / float64(len(relevant))
}

// reciprocalRank is 1/r for the first hit r covering a relevant unit.
func reciprocalRank(hits [][]string, relevant []string) float64 {
	for i, us := range hits {
		for _, u := range us {
			if slices.Contains(relevant, u) {
				return 1 / float64(i+1)
			}
		}
	}
	return 0
}

// suiteAcc accumulates one half's figures.
type suiteAcc struct {
	row                    SuiteRow
	recall                 map[int]float64
	mrr, para              float64
	own, ownN, pref, prefN int
}

func (a *suiteAcc) miss(s string) {
	if len(a.row.Misses) < 5 {
		a.row.Misses = append(a.row.Misses, s)
	}
}

// scoreSet runs every query of set in mode and returns its held-out and
// tuning rows.
func scoreSet(ctx context.Context, mem *amem.Memory, set Set, mode SuiteMode, cfg SuiteConfig) ([]SuiteRow, error) {
	halves := map[string]*suiteAcc{}
	for _, h := range []string{HalfHeldOut, HalfTuning} {
		halves[h] = &suiteAcc{row: SuiteRow{Set: set.Name, Mode: mode.Name, Half: h}, recall: map[int]float64{}}
	}
	cuts := []int{1, 5, cfg.K}
	total := 0
	for _, sp := range set.Spaces {
		total += len(sp.Queries) + len(sp.Notes)
	}
	bar := progress.New(cfg.Progress, set.Name+" "+mode.Name, total, progress.Options{})
	defer bar.Done()
	// search runs q at K and at PrefixK and checks that the first is a
	// prefix of the second.
	search := func(ns, q string, a *suiteAcc) ([]amem.Result, error) {
		req := mode.Request
		req.Namespace, req.Query, req.LinkBudget = ns, q, -1
		req.K = cfg.PrefixK
		deep, err := mem.Search(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", q, err)
		}
		req.K = cfg.K
		rs, err := mem.Search(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", q, err)
		}
		a.prefN++
		if samePrefix(rs, deep, cfg.K) {
			a.pref++
		} else {
			a.miss(fmt.Sprintf("k-prefix: %.60q", q))
		}
		return rs, nil
	}
	for _, sp := range set.Spaces {
		ns := suiteNamespace(set, sp)
		for _, q := range sp.Queries {
			a := halves[HalfTuning]
			if HeldOut(q.Key) {
				a = halves[HalfHeldOut]
			}
			rs, err := search(ns, q.Text, a)
			if err != nil {
				return nil, err
			}
			bar.Add(1)
			if len(q.Relevant) == 0 {
				continue
			}
			hits := units(rs)
			a.row.N++
			for _, c := range cuts {
				a.recall[c] += recallAt(hits, q.Relevant, c)
			}
			a.mrr += reciprocalRank(hits, q.Relevant)
			if q.Kind == KindParaphrase {
				a.row.Paraphrases++
				a.para += recallAt(hits, q.Relevant[:1], 1)
			}
		}
		// Own text: every note's content as the query. These use no
		// labelled query, so they are counted once, on the held-out row.
		a := halves[HalfHeldOut]
		for _, n := range sp.Notes {
			rs, err := search(ns, n.Content, a)
			if err != nil {
				return nil, err
			}
			bar.Add(1)
			a.ownN++
			if len(rs) > 0 && sameText(rs[0].Note.Content, n.Content) {
				a.own++
			} else {
				first := ""
				if len(rs) > 0 {
					first = rs[0].Note.Content
				}
				a.miss(fmt.Sprintf("own text: %.60q first %.60q", n.Content, first))
			}
		}
	}
	var out []SuiteRow
	for _, h := range []string{HalfHeldOut, HalfTuning} {
		a := halves[h]
		r := a.row
		r.Recall = map[string]float64{}
		if r.N > 0 {
			for _, c := range cuts {
				r.Recall[fmt.Sprint(c)] = a.recall[c] / float64(r.N)
			}
			r.MRR = a.mrr / float64(r.N)
		}
		if r.Paraphrases > 0 {
			r.Paraphrase = a.para / float64(r.Paraphrases)
		}
		if a.ownN > 0 {
			r.OwnText, r.OwnTextN = float64(a.own)/float64(a.ownN), a.ownN
		}
		if a.prefN > 0 {
			r.Prefix, r.PrefixN = float64(a.pref)/float64(a.prefN), a.prefN
		}
		out = append(out, r)
	}
	return out, nil
}

// samePrefix says whether the direct hits of short are the first k of
// long's.
func samePrefix(short, long []amem.Result, k int) bool {
	if len(short) != min(k, len(long)) {
		return false
	}
	for i := range short {
		if short[i].Note.ID != long[i].Note.ID {
			return false
		}
	}
	return true
}

// sameText compares contents as a person would: case and spacing aside.
func sameText(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}
