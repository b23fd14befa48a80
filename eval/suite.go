package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/progress"
	"github.com/amem-dev/amem/internal/searchtune"
	"github.com/amem-dev/amem/memory"
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
	// tune switches the conversation profile's extra rankings off for
	// fusion alone (internal/searchtune).
	tune searchtune.Tuning
}

// Modes the suite runs by default: each retriever alone; their
// reciprocal-rank fusion without anything more; each profile of hybrid
// search forced on every set (the ablation of the profile switch); and
// the product's default search, which picks the profile by what the
// namespace holds.
var (
	SuiteVector  = SuiteMode{Name: "vector", Request: amem.SearchRequest{Mode: amem.SearchVector}}
	SuiteLexical = SuiteMode{Name: "lexical", Request: amem.SearchRequest{Mode: amem.SearchLexical}}
	SuiteFusion  = SuiteMode{Name: "fusion",
		Request: amem.SearchRequest{Mode: amem.SearchHybrid, Profile: amem.ProfileConversation, NoRanker: true},
		tune:    searchtune.Tuning{ReplyWeight: -1, FeedbackWeight: -1, DenseFeedbackWeight: -1, DaySpread: -1},
	}
	SuiteGeneral      = SuiteMode{Name: "general", Request: amem.SearchRequest{Mode: amem.SearchHybrid, Profile: amem.ProfileGeneral}}
	SuiteConversation = SuiteMode{Name: "conversation", Request: amem.SearchRequest{Mode: amem.SearchHybrid, Profile: amem.ProfileConversation}}
	SuiteDefault      = SuiteMode{Name: "default", Request: amem.SearchRequest{}}
)

// DefaultSuiteModes are the modes of `amem-eval suite`.
func DefaultSuiteModes() []SuiteMode {
	return []SuiteMode{SuiteVector, SuiteLexical, SuiteFusion, SuiteGeneral, SuiteConversation, SuiteDefault}
}

// SuiteConfig says what the suite runs.
type SuiteConfig struct {
	// Options open every store: the product's options (package local's
	// defaults), Embedder and Curator included.
	Options memory.Options
	Modes   []SuiteMode
	// K is the depth of the recall figures (default 10).
	K int
	// PrefixK is the larger search whose first K must be the search's
	// (default 2K at the least 20).
	PrefixK int
	// WorkDir holds the stores (default: a temporary directory).
	WorkDir string
	// Fit fits the relevance curves on the tuning halves (relevancefit.go)
	// into SuiteResults.Fit.
	Fit bool
	// Priors measures recency and recall-frequency priors over the
	// default search (priors.go) into SuiteResults.Priors.
	Priors   bool
	Progress io.Writer
	Now      func() time.Time
}

// SuiteResults are a suite's figures, per set, mode and half.
type SuiteResults struct {
	Date string `json:"date"`
	// Machine is where it ran: OS, architecture, CPUs and, on Linux, the
	// CPU\'s model.
	Machine string `json:"machine"`
	K       int    `json:"k"`
	PrefixK int    `json:"prefix_k"`
	// MinScore is the floor the product's curves suggest (the table
	// reports it; the rows' Floors every floor tried).
	MinScore float64       `json:"min_score"`
	Sets     []SetSummary  `json:"sets"`
	Rows     []SuiteRow    `json:"rows"`
	Fit      *RelevanceFit `json:"relevance_fit,omitempty"`
	Priors   *PriorResults `json:"priors,omitempty"`
	// Queries are the per-query figures behind Rows, for a paired
	// comparison of two runs (Paired).
	Queries []QueryScore `json:"queries,omitempty"`
}

// QueryScore is one answerable query's figures in one mode. Only its key
// is kept, not its text: the file may be shared.
type QueryScore struct {
	Set    string  `json:"set"`
	Mode   string  `json:"mode"`
	Half   string  `json:"half"`
	Key    string  `json:"key"`
	Recall float64 `json:"recall"` // at the results' K
	RR     float64 `json:"rr"`     // reciprocal rank of the first relevant hit
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
	// Floors maps each floor tried (SuiteFloors) to what it does in this
	// mode: the share of the queries nothing answers whose hits all
	// score below it, and the share of relevant hits in the first K that
	// score at or above it.
	Floors map[string]FloorStats `json:"floors,omitempty"`
	// Misses name up to 5 own-text or k-prefix failures, for a reader.
	Misses []string `json:"misses,omitempty"`
}

// FloorStats are what a relevance floor (SearchRequest.MinScore) does.
type FloorStats struct {
	Silent     float64 `json:"irrelevant_silent"`
	Irrelevant int     `json:"irrelevant"`
	Kept       float64 `json:"relevant_kept"`
	Relevant   int     `json:"relevant"`
}

// SuiteFloors are the relevance floors the suite reports on.
var SuiteFloors = []float64{0.01, 0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3}

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
	var cleanup func()
	var err error
	cfg.Progress, cfg.Now, cfg.WorkDir, cleanup, err = runDefaults(cfg.Progress, cfg.Now, cfg.WorkDir, "amem-suite-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	opts := cfg.Options
	opts.Embedder = newQueryCache(opts.Embedder)
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	res := &SuiteResults{Date: cfg.Now().UTC().Format(time.DateOnly), Machine: machine(), K: cfg.K, PrefixK: cfg.PrefixK}
	if opts.Search.Relevance != nil {
		res.MinScore = opts.Search.Relevance.MinScore
	}
	var fitQs []fitQuery
	var priorQs []priorQuery
	for _, set := range sets {
		mem, sum, err := ingestSet(ctx, set, opts, cfg)
		if err != nil {
			return nil, fmt.Errorf("set %s: %w", set.Name, err)
		}
		res.Sets = append(res.Sets, sum)
		if cfg.Fit {
			qs, err := collectFit(ctx, mem, set)
			if err != nil {
				mem.Close()
				return nil, fmt.Errorf("set %s: measuring candidates: %w", set.Name, err)
			}
			fitQs = append(fitQs, qs...)
		}
		if cfg.Priors {
			qs, err := collectPriors(ctx, mem, set)
			if err != nil {
				mem.Close()
				return nil, fmt.Errorf("set %s: reading searches for the priors: %w", set.Name, err)
			}
			priorQs = append(priorQs, qs...)
		}
		for _, mode := range cfg.Modes {
			rows, qs, err := scoreSet(ctx, mem, set, mode, cfg)
			if err != nil {
				mem.Close()
				return nil, fmt.Errorf("set %s, mode %s: %w", set.Name, mode.Name, err)
			}
			res.Rows = append(res.Rows, rows...)
			res.Queries = append(res.Queries, qs...)
		}
		if err := mem.Close(); err != nil {
			return nil, err
		}
	}
	if cfg.Fit {
		f := FitRelevance(fitQs, cfg.K)
		res.Fit = &f
	}
	if cfg.Priors {
		p := AnalysePriors(priorQs, cfg.K)
		res.Priors = &p
	}
	return res, nil
}

// machine names the machine a run is on, for the report beside its date.
func machine() string {
	m := fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				m += ", " + strings.TrimSpace(strings.TrimLeft(name, "\t :"))
				break
			}
		}
	}
	return m
}

// suiteNamespace is the namespace of a set's space.
func suiteNamespace(set Set, sp Space) string {
	return validNamespace(set.Name + "-" + sp.Name)
}

// ingestSet writes a set's notes into a store of its own, through the
// configured curator, in the order given.
func ingestSet(ctx context.Context, set Set, opts memory.Options, cfg SuiteConfig) (*memory.Memory, SetSummary, error) {
	sum := SetSummary{Name: set.Name, About: set.About}
	st, err := sqlite.Open(ctx, filepath.Join(cfg.WorkDir, validNamespace(set.Name)+".db"), nil)
	if err != nil {
		return nil, sum, err
	}
	opts.Indexes.IndexDir = ""
	mem, err := memory.Open(ctx, st, &opts)
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
	silent, kept           []int // by SuiteFloors
	irrelevant, relevant   int
}

func (a *suiteAcc) miss(s string) {
	if len(a.row.Misses) < 5 {
		a.row.Misses = append(a.row.Misses, s)
	}
}

// scoreSet runs every query of set in mode and returns its held-out and
// tuning rows, and each answerable query's figures.
func scoreSet(ctx context.Context, mem *memory.Memory, set Set, mode SuiteMode, cfg SuiteConfig) ([]SuiteRow, []QueryScore, error) {
	var scores []QueryScore
	halves := map[string]*suiteAcc{}
	for _, h := range []string{HalfHeldOut, HalfTuning} {
		halves[h] = &suiteAcc{row: SuiteRow{Set: set.Name, Mode: mode.Name, Half: h}, recall: map[int]float64{},
			silent: make([]int, len(SuiteFloors)), kept: make([]int, len(SuiteFloors))}
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
		sctx := searchtune.With(ctx, mode.tune)
		req.K = cfg.PrefixK
		deep, err := mem.Search(sctx, req)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", q, err)
		}
		req.K = cfg.K
		rs, err := mem.Search(sctx, req)
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
				return nil, nil, err
			}
			bar.Add(1)
			if len(q.Relevant) == 0 {
				a.irrelevant++
				for i, f := range SuiteFloors {
					if len(rs) == 0 || rs[0].Score < f {
						a.silent[i]++
					}
				}
				continue
			}
			hits := units(rs)
			for j, us := range hits {
				if slices.ContainsFunc(us, func(u string) bool { return slices.Contains(q.Relevant, u) }) {
					a.relevant++
					for i, f := range SuiteFloors {
						if rs[j].Score >= f {
							a.kept[i]++
						}
					}
				}
			}
			a.row.N++
			for _, c := range cuts {
				a.recall[c] += recallAt(hits, q.Relevant, c)
			}
			rr := reciprocalRank(hits, q.Relevant)
			a.mrr += rr
			scores = append(scores, QueryScore{Set: set.Name, Mode: mode.Name, Half: a.row.Half, Key: q.Key, Recall: recallAt(hits, q.Relevant, cfg.K), RR: rr})
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
				return nil, nil, err
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
		r.Floors = map[string]FloorStats{}
		for i, f := range SuiteFloors {
			st := FloorStats{Irrelevant: a.irrelevant, Relevant: a.relevant}
			if a.irrelevant > 0 {
				st.Silent = float64(a.silent[i]) / float64(a.irrelevant)
			}
			if a.relevant > 0 {
				st.Kept = float64(a.kept[i]) / float64(a.relevant)
			}
			r.Floors[fmt.Sprint(f)] = st
		}
		out = append(out, r)
	}
	return out, scores, nil
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
