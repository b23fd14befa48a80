package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/progress"
	"github.com/amem-dev/amem/internal/searchtune"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/offline"
	"github.com/amem-dev/amem/sqlite"
)

// Mode is one retrieval system under test.
type Mode string

const (
	ModeBM25    Mode = "bm25"   // BM25 (the namespace's full-text index) over raw turns
	ModeVector  Mode = "vector" // dense cosine over raw turns
	ModeHybrid  Mode = "hybrid" // both, fused by reciprocal rank
	ModeAMem    Mode = "amem"   // enriched notes, links and evolution
	ModeNoEvo   Mode = "amem-no-evolution"
	ModeNoLinks Mode = "amem-no-links" // enriched and evolved, retrieval without linked notes
)

// Modes lists every mode in report order.
var Modes = []Mode{ModeBM25, ModeVector, ModeHybrid, ModeAMem, ModeNoEvo, ModeNoLinks}

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown mode %q; use one of %s", s, strings.Join(names, ", "))
}

// RecallKs are the cut-offs at which recall and hit are reported, with
// the run's K (see cutoffs).
var RecallKs = []int{1, 5, 10, 25, 50}

// cutoffs are RecallKs and k, in order: the table's headline is recall at
// the run's own K, whichever it is.
func cutoffs(k int) []int {
	if slices.Contains(RecallKs, k) {
		return RecallKs
	}
	ks := append(slices.Clone(RecallKs), k)
	slices.Sort(ks)
	return ks
}

// Config says what to run. Zero fields mean the defaults.
type Config struct {
	Modes []Mode
	// K is the number of direct hits per search (default 10).
	K int
	// Embedder makes every vector (required).
	Embedder amem.Embedder
	// Curator for the amem modes; nil means the offline curator.
	Curator amem.Curator
	// CuratorName is recorded in the results ("offline" by default).
	CuratorName string
	// Answerer, when set, answers every question from its context list
	// and the answers are scored; AnswererName is recorded.
	Answerer     amem.LLM
	AnswererName string
	// Search is the ranking of the amem modes (default hybrid); the
	// baselines use their own.
	Search amem.SearchMode
	// LexicalWeight weighs the full-text ranking in the amem modes' hybrid
	// fusion (memory.Options.Search.LexicalWeight; default 1). The hybrid baseline
	// is plain reciprocal rank fusion, weight 1, whatever this says.
	LexicalWeight float64
	// ReplyWeight, FeedbackWeight and DenseFeedbackWeight weigh hybrid
	// search's extra rankings in the amem modes (memory.Options.Search.ReplyWeight
	// and the rest; 0, the default, is off). The baselines never use
	// them.
	ReplyWeight, FeedbackWeight, DenseFeedbackWeight float64
	// DaySpread spreads the amem modes' hybrid hits over days
	// (memory.Options.Search.DaySpread; 0, the default, is off).
	DaySpread float64
	// Ranker re-orders the amem modes' hybrid candidates (the ranker the
	// product ships, say); nil: fusion's order. NoRanker turns it off
	// and skips the ranker's cross-validation (the ablation "fusion
	// only").
	Ranker   *memory.Ranker
	NoRanker bool
	// EmbedText is the text embedded for each note of the amem modes
	// (memory.Options.EmbedText; default the paper's), EmbedTextName its
	// name in the results.
	EmbedText     func(amem.Note) string
	EmbedTextName string
	// WorkDir holds the stores (default: a temporary directory, removed
	// after the run).
	WorkDir string
	// Store, when set, opens the database every ingest of the run writes
	// to instead (a PostgreSQL database, say), once per ingest; the
	// namespaces stay there. Every ingest writes namespaces of its own,
	// named NamespacePrefix + ingest + "-" + conversation.
	Store           func(ctx context.Context) (amem.Store, error)
	NamespacePrefix string
	// CV, when set, adds leave-one-conversation-out cross-validation over
	// these constants (see the package documentation and DefaultGrid).
	CV []GridParam
	// Progress receives a progress line on stderr-like writers.
	Progress io.Writer
	// Now is the clock for timings (default time.Now).
	Now func() time.Time
}

// store kinds: the ingests that modes share.
type ingestKind string

const (
	ingestRaw   ingestKind = "raw"      // no curator
	ingestAMem  ingestKind = "enriched" // full pipeline
	ingestNoEvo ingestKind = "no-evolution"
)

func (m Mode) ingest() ingestKind {
	switch m {
	case ModeAMem, ModeNoLinks:
		return ingestAMem
	case ModeNoEvo:
		return ingestNoEvo
	}
	return ingestRaw
}

// request is a search as the evaluation asks it: the request, and the
// conversation profile's constants it tries, which a search finds in its
// context (package internal/searchtune: not part of amem's API).
type request struct {
	amem.SearchRequest
	tune searchtune.Tuning
}

// run searches mem with r.
func (r request) run(ctx context.Context, mem *memory.Memory) ([]amem.Result, error) {
	return mem.Search(searchtune.With(ctx, r.tune), r.SearchRequest)
}

// search returns the search a mode runs, without the namespace and query.
func (c *Config) search(m Mode) request {
	switch m {
	case ModeBM25:
		return request{SearchRequest: amem.SearchRequest{Mode: amem.SearchLexical, LinkBudget: -1}}
	case ModeVector:
		return request{SearchRequest: amem.SearchRequest{Mode: amem.SearchVector, LinkBudget: -1}}
	case ModeHybrid:
		return request{SearchRequest: amem.SearchRequest{Mode: amem.SearchHybrid, LinkBudget: -1}, tune: searchtune.Tuning{LexicalWeight: 1}}
	}
	req := request{
		SearchRequest: amem.SearchRequest{Mode: c.Search, NoRanker: c.NoRanker || c.Ranker == nil},
		tune: searchtune.Tuning{LexicalWeight: c.LexicalWeight, ReplyWeight: offIfZero(c.ReplyWeight),
			FeedbackWeight: offIfZero(c.FeedbackWeight), DenseFeedbackWeight: offIfZero(c.DenseFeedbackWeight),
			DaySpread: offIfZero(c.DaySpread), Ranker: c.Ranker},
	}
	if c.NoRanker {
		req.tune.Ranker = nil
	}
	if m == ModeNoLinks {
		req.LinkBudget = -1
	}
	return req
}

// offIfZero maps a Config weight or spread, where 0 is off, to a
// tuning's, where 0 means the Memory's own and negative is off.
func offIfZero(w float64) float64 {
	if w == 0 {
		return -1
	}
	return w
}

// Run ingests the conversations and answers every question in every mode.
func Run(ctx context.Context, convs []locomo.Conversation, cfg Config) (*Results, error) {
	if cfg.Embedder == nil {
		return nil, errors.New("eval: no embedder")
	}
	if len(cfg.Modes) == 0 {
		cfg.Modes = []Mode{ModeAMem}
	}
	if cfg.K <= 0 {
		cfg.K = 10
	}
	if cfg.Search == "" {
		cfg.Search = amem.SearchHybrid
	}
	if cfg.LexicalWeight <= 0 {
		cfg.LexicalWeight = 1
	}
	if cfg.CuratorName == "" {
		cfg.CuratorName = "offline"
	}
	if len(cfg.CV) > 0 && len(convs) < 2 {
		return nil, fmt.Errorf("eval: cross-validation holds out one conversation at a time and needs at least 2; the data has %d", len(convs))
	}
	if len(cfg.CV) > 0 && cfg.Curator != nil {
		for _, p := range cfg.CV {
			if p.Ingest {
				return nil, fmt.Errorf("eval: the grid's %s is the offline curator's; this run's curator is %s", p.Name, cfg.CuratorName)
			}
		}
	}
	if cfg.Curator == nil {
		cfg.Curator = offline.New(cfg.Embedder, nil)
	}
	// Every search embeds its query, and the deeper search and every
	// grid point ask the same questions again.
	cfg.Embedder = newQueryCache(cfg.Embedder)
	var cleanup func()
	var err error
	cfg.Progress, cfg.Now, cfg.WorkDir, cleanup, err = runDefaults(cfg.Progress, cfg.Now, cfg.WorkDir, "amem-eval-")
	if err != nil {
		return nil, err
	}
	defer cleanup()

	res := &Results{Config: resultConfig(cfg, convs)}
	mems := map[string]*memory.Memory{}
	defer func() {
		for _, m := range mems {
			m.Close()
		}
	}()
	for _, mode := range cfg.Modes {
		kind := mode.ingest()
		if mems[string(kind)] != nil {
			continue
		}
		mem, stats, err := ingest(ctx, convs, string(kind), curatorFor(kind, cfg.Curator), cfg)
		if err != nil {
			return nil, fmt.Errorf("ingest %s: %w", kind, err)
		}
		mems[string(kind)] = mem
		res.Ingest = append(res.Ingest, stats)
	}
	for _, mode := range cfg.Modes {
		qs, err := ask(ctx, convs, mode, mems[string(mode.ingest())], cfg, res)
		if err != nil {
			return nil, fmt.Errorf("mode %s: %w", mode, err)
		}
		res.Questions = append(res.Questions, qs...)
	}
	res.summarise(cfg.Modes)
	if len(cfg.CV) > 0 {
		cv, err := crossValidate(ctx, convs, cfg, mems, res)
		if err != nil {
			return nil, err
		}
		res.CV = cv
		if !cfg.NoRanker {
			if res.CV.Ranker, err = rankerCV(ctx, convs, cfg, mems); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// noEvolution wraps a curator and drops its evolutions: the ablation
// "links without memory evolution".
type noEvolution struct{ amem.Curator }

func (c noEvolution) Connect(ctx context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
	d, err := c.Curator.Connect(ctx, n, cands)
	d.Evolve = nil
	return d, err
}

// curatorFor is the curator an ingest kind runs with: none for the raw
// turns, cur for the full pipeline, cur without its evolutions for the
// ablation.
func curatorFor(kind ingestKind, cur amem.Curator) amem.Curator {
	switch kind {
	case ingestAMem:
		return cur
	case ingestNoEvo:
		return noEvolution{cur}
	}
	return nil
}

// ingest writes every turn of convs into a store of its own, through cur,
// in namespaces named after name (see namespace).
func ingest(ctx context.Context, convs []locomo.Conversation, name string, cur amem.Curator, cfg Config) (*memory.Memory, IngestStats, error) {
	stats := IngestStats{Store: name}
	var st amem.Store
	var err error
	if cfg.Store != nil {
		st, err = cfg.Store(ctx)
	} else {
		st, err = sqlite.Open(ctx, filepath.Join(cfg.WorkDir, name+".db"), nil)
	}
	if err != nil {
		return nil, stats, err
	}
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: cfg.Embedder, EmbedText: cfg.EmbedText, Curator: cur, Logger: discardLogger()})
	if err != nil {
		st.Close()
		return nil, stats, err
	}
	total := 0
	for _, c := range convs {
		total += len(c.Turns())
	}
	bar := progress.New(cfg.Progress, "ingest "+name, total, progress.Options{})
	var lat []time.Duration
	start := cfg.Now()
	for _, c := range convs {
		for _, t := range c.Turns() {
			t0 := cfg.Now()
			n, err := mem.Add(ctx, amem.AddRequest{
				Namespace: cfg.namespace(name, c.SampleID), Content: t.Content(), EventTime: t.Time,
				Metadata: map[string]string{"dia_id": t.DiaID, "speaker": t.Speaker},
			})
			if err != nil {
				mem.Close()
				return nil, stats, fmt.Errorf("%s %s: %w", c.SampleID, t.DiaID, err)
			}
			lat = append(lat, cfg.Now().Sub(t0))
			if n.Enrichment.State == amem.EnrichFailed {
				stats.Failed++
			}
			stats.Notes++
			bar.Add(1)
		}
	}
	bar.Done()
	stats.Seconds = cfg.Now().Sub(start).Seconds()
	stats.PerNote = percentiles(lat)
	for _, c := range convs {
		s, err := mem.Stats(ctx, cfg.namespace(name, c.SampleID))
		if err != nil {
			mem.Close()
			return nil, stats, err
		}
		for _, x := range s {
			stats.Links += x.Links
			for _, u := range x.Usage {
				stats.Usage = stats.Usage.Add(u.Usage)
			}
		}
	}
	return mem, stats, nil
}

// namespace names a conversation's namespace in an ingest: the ingest's
// name and the sample ID, made valid, after NamespacePrefix. The ingests
// share the curator, and the offline curator keeps statistics per
// namespace: with the same names in every ingest, the no-evolution ingest
// decided with the enriched ingest's statistics (0.657 at @10 on the dev
// split after it, 0.662 alone).
func (c *Config) namespace(ingest, sampleID string) string {
	return c.NamespacePrefix + validNamespace(ingest) + "-" + validNamespace(sampleID)
}

// validNamespace maps a sample ID to a valid namespace name.
func validNamespace(sampleID string) string {
	var b strings.Builder
	for _, r := range sampleID {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "conversation"
	}
	return b.String()
}

func ask(ctx context.Context, convs []locomo.Conversation, mode Mode, mem *memory.Memory, cfg Config, res *Results) ([]QuestionResult, error) {
	total := 0
	for _, c := range convs {
		total += len(c.QA)
	}
	bar := progress.New(cfg.Progress, "questions "+string(mode), total, progress.Options{})
	var out []QuestionResult
	var lat []time.Duration
	for _, c := range convs {
		req := cfg.search(mode)
		req.Namespace = cfg.namespace(string(mode.ingest()), c.SampleID)
		for _, q := range c.QA {
			t0 := cfg.Now()
			qr, rs, err := retrieve(ctx, mem, req, cfg.K, mode, c.SampleID, q)
			if err != nil {
				return nil, err
			}
			lat = append(lat, cfg.Now().Sub(t0))
			lines := make([]string, len(rs))
			for i, r := range rs {
				lines[i] = ContextLine(r.Note)
				qr.ContextTokens += approxTokens(lines[i])
			}
			if cfg.Answerer != nil {
				if err := answer(ctx, cfg.Answerer, q, lines, &qr); err != nil {
					return nil, fmt.Errorf("%s question %d: %w", c.SampleID, q.Index, err)
				}
			}
			// Cut-offs past K are read from a deeper search of the same
			// system, so the recall curve goes on past the context list.
			if deepK := RecallKs[len(RecallKs)-1]; deepK > cfg.K {
				deepReq := req
				deepReq.Query, deepReq.K = q.Question, deepK
				deep, err := deepReq.run(ctx, mem)
				if err != nil {
					return nil, fmt.Errorf("%s question %d: %w", c.SampleID, q.Index, err)
				}
				qr.RetrievedDeep = diaIDs(deep)
				for _, k := range cutoffs(cfg.K) {
					if k > cfg.K && qr.Recall != nil {
						qr.Recall[fmt.Sprint(k)] = locomo.RecallAt(qr.RetrievedDeep, q.Evidence, k)
						qr.Hit[fmt.Sprint(k)] = locomo.HitAt(qr.RetrievedDeep, q.Evidence, k)
					}
				}
			}
			out = append(out, qr)
			bar.Add(1)
		}
	}
	bar.Done()
	res.Search = append(res.Search, SearchStats{Mode: mode, PerQuery: percentiles(lat)})
	return out, nil
}

// retrieve asks one question (req names the namespace) and scores its
// context list: recall and hit at the cut-offs up to k, over the whole
// list, and its reciprocal rank.
func retrieve(ctx context.Context, mem *memory.Memory, req request, k int, mode Mode, sampleID string, q locomo.Question) (QuestionResult, []amem.Result, error) {
	req.Query, req.K = q.Question, k
	rs, err := req.run(ctx, mem)
	if err != nil {
		return QuestionResult{}, nil, fmt.Errorf("%s question %d: %w", sampleID, q.Index, err)
	}
	qr := QuestionResult{
		Mode: mode, SampleID: sampleID, Index: q.Index, Category: q.Category,
		Question: q.Question, Answer: q.Answer, Evidence: nonNil(q.Evidence),
		Retrieved: diaIDs(rs), Kinds: make([]amem.ResultKind, len(rs)),
	}
	for i, r := range rs {
		qr.Kinds[i] = r.Kind
	}
	score(&qr, k)
	return qr, rs, nil
}

// score fills in a question's recall and hit at the cut-offs up to k and
// over the whole context list, and its reciprocal rank, from Retrieved
// and Evidence; a question without evidence gets none.
func score(qr *QuestionResult, k int) {
	if len(qr.Evidence) == 0 {
		return
	}
	qr.Recall = map[string]float64{}
	qr.Hit = map[string]float64{}
	for _, c := range cutoffsUpTo(k) {
		qr.Recall[fmt.Sprint(c)] = locomo.RecallAt(qr.Retrieved, qr.Evidence, c)
		qr.Hit[fmt.Sprint(c)] = locomo.HitAt(qr.Retrieved, qr.Evidence, c)
	}
	// The whole context list: K direct hits plus linked notes.
	qr.Recall["context"] = locomo.RecallAt(qr.Retrieved, qr.Evidence, len(qr.Retrieved))
	qr.Hit["context"] = locomo.HitAt(qr.Retrieved, qr.Evidence, len(qr.Retrieved))
	rr := locomo.ReciprocalRank(qr.Retrieved, qr.Evidence)
	qr.RR = &rr
}

func diaIDs(rs []amem.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Note.Metadata["dia_id"]
	}
	return out
}

// ContextLine is how a note is shown to an answering model: its date and
// content. Context tokens are counted on it.
func ContextLine(n amem.Note) string {
	return "[" + n.EventTime.Format("2 January 2006") + "] " + n.Content
}

// approxTokens estimates tokens as characters/4, the usual rule of thumb
// for English with BPE tokenizers; no tokenizer ships with amem.
func approxTokens(s string) int { return (len(s) + 3) / 4 }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// runDefaults fills in a run's progress writer (none), clock (the wall
// clock) and work directory (a temporary one named after prefix, which
// cleanup removes).
func runDefaults(progress io.Writer, now func() time.Time, dir, prefix string) (io.Writer, func() time.Time, string, func(), error) {
	if progress == nil {
		progress = io.Discard
	}
	if now == nil {
		now = time.Now
	}
	cleanup := func() {}
	if dir == "" {
		d, err := os.MkdirTemp("", prefix)
		if err != nil {
			return nil, nil, "", nil, err
		}
		dir, cleanup = d, func() { os.RemoveAll(d) }
	}
	return progress, now, dir, cleanup, nil
}

// Percentiles of a latency sample, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	N   int     `json:"n"`
}

func percentiles(d []time.Duration) Percentiles {
	if len(d) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(d)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(p float64) float64 {
		i := int(p*float64(len(s)-1) + 0.5)
		return float64(s[i].Microseconds()) / 1000
	}
	return Percentiles{P50: at(0.50), P95: at(0.95), N: len(s)}
}
