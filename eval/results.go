package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/locomo"
)

// Results is the results file. Its format is stable: anyone can re-score
// it from "questions" alone.
type Results struct {
	Config    ResultConfig     `json:"config"`
	Questions []QuestionResult `json:"questions"`
	// Summary maps mode -> category ("1".."5", and "1-4" pooled) ->
	// metric ("recall@10", "hit@10", "context_tokens", ...) -> mean.
	Summary map[Mode]map[string]map[string]float64 `json:"summary"`
	// Counts maps mode -> category -> questions with evidence.
	Counts map[Mode]map[string]int `json:"counts"`
	Ingest []IngestStats           `json:"ingest"`
	Search []SearchStats           `json:"search"`
	// CV is the leave-one-conversation-out report (with Config.CV).
	CV *CVReport `json:"cv,omitempty"`
}

// ResultConfig records what was run.
type ResultConfig struct {
	Modes         []Mode  `json:"modes"`
	Answerer      string  `json:"answerer,omitempty"`
	K             int     `json:"k"`
	Embedder      string  `json:"embedder"`
	Curator       string  `json:"curator"`
	Search        string  `json:"search"`
	LexicalWeight float64 `json:"lexical_weight"`
	// ReplyWeight, FeedbackWeight, DenseFeedbackWeight: hybrid search's
	// extra rankings in the amem modes, DaySpread its spread over days
	// (absent: off).
	ReplyWeight         float64   `json:"reply_weight,omitempty"`
	FeedbackWeight      float64   `json:"feedback_weight,omitempty"`
	DenseFeedbackWeight float64   `json:"dense_feedback_weight,omitempty"`
	DaySpread           float64   `json:"day_spread,omitempty"`
	EmbedText           string    `json:"embed_text,omitempty"`
	Conversations       []string  `json:"conversations"`
	Questions           int       `json:"questions"`
	Turns               int       `json:"turns"`
	Categories          string    `json:"categories"`
	Date                time.Time `json:"date"`
}

// QuestionResult is one question in one mode.
type QuestionResult struct {
	Mode     Mode     `json:"mode"`
	SampleID string   `json:"sample_id"`
	Index    int      `json:"index"` // position in the conversation's qa list
	Category int      `json:"category"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Evidence []string `json:"evidence"`
	// Retrieved is the context list: dia_ids in context order; Kinds says
	// for each whether it was a direct hit or came through a link.
	Retrieved     []string          `json:"retrieved"`
	Kinds         []amem.ResultKind `json:"kinds"`
	ContextTokens int               `json:"context_tokens"`
	// RetrievedDeep is the context list of a search with K = 50, which
	// recall and hit at cut-offs above K are read from.
	RetrievedDeep []string `json:"retrieved_deep,omitempty"`
	// Recall and Hit at each k of RecallKs (over Retrieved for k <= K,
	// RetrievedDeep above) and at "context" (the whole of Retrieved:
	// direct hits and linked notes); absent when the question has no
	// evidence.
	Recall map[string]float64 `json:"recall,omitempty"`
	Hit    map[string]float64 `json:"hit,omitempty"`
	// RR is the reciprocal rank of the first evidence turn in Retrieved
	// (0 when none is there); absent when the question has no evidence,
	// and in files written before it was added.
	RR *float64 `json:"rr,omitempty"`
	// With --answer: the model's answer and its scores (official LoCoMo
	// F1, the A-Mem harness's set F1 and BLEU-1) against Answer.
	Prediction  *string    `json:"prediction,omitempty"`
	F1          *float64   `json:"f1,omitempty"`
	F1Set       *float64   `json:"f1_set,omitempty"`
	BLEU1       *float64   `json:"bleu1,omitempty"`
	AnswerUsage amem.Usage `json:"answer_usage,omitzero"`
}

// IngestStats describes one ingest.
type IngestStats struct {
	Store   string      `json:"store"`
	Notes   int         `json:"notes"`
	Failed  int         `json:"failed"`
	Links   int         `json:"links"`
	Seconds float64     `json:"seconds"`
	PerNote Percentiles `json:"per_note"`
	Usage   amem.Usage  `json:"usage"`
}

// SearchStats describes one mode's searches.
type SearchStats struct {
	Mode     Mode        `json:"mode"`
	PerQuery Percentiles `json:"per_query"`
}

func resultConfig(cfg Config, convs []locomo.Conversation) ResultConfig {
	rc := ResultConfig{
		Modes: cfg.Modes, K: cfg.K, Embedder: cfg.Embedder.Name(), Curator: cfg.CuratorName,
		Search: string(cfg.Search), LexicalWeight: cfg.LexicalWeight,
		ReplyWeight: cfg.ReplyWeight, FeedbackWeight: cfg.FeedbackWeight, DenseFeedbackWeight: cfg.DenseFeedbackWeight, DaySpread: cfg.DaySpread, EmbedText: cfg.EmbedTextName, Categories: "official LoCoMo mapping: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial",
		Date: cfg.Now().UTC().Truncate(time.Second), Answerer: cfg.AnswererName,
	}
	for _, c := range convs {
		rc.Conversations = append(rc.Conversations, c.SampleID)
		rc.Questions += len(c.QA)
		rc.Turns += len(c.Turns())
	}
	return rc
}

func (r *Results) summarise(modes []Mode) {
	r.Summary = map[Mode]map[string]map[string]float64{}
	r.Counts = map[Mode]map[string]int{}
	for _, mode := range modes {
		var qs []QuestionResult
		for _, q := range r.Questions {
			if q.Mode == mode {
				qs = append(qs, q)
			}
		}
		s := summarise(qs, cutoffs(r.Config.K))
		r.Summary[mode], r.Counts[mode] = s.Means, s.Counts
	}
}

// Scores are the means of a set of question results: category ("1".."5",
// and "1-4" pooled) -> metric ("recall@10", "mrr", ...) -> mean, and the
// questions with evidence per category.
type Scores struct {
	Means  map[string]map[string]float64 `json:"means"`
	Counts map[string]int                `json:"counts"`
}

// summarise averages qs per category: recall and hit at ks (a cut-off a
// question was not scored at counts as absent, not as 0), MRR, the whole
// context list, and the answer scores where there are answers.
func summarise(qs []QuestionResult, ks []int) Scores {
	var agg locomo.Aggregator
	for _, q := range qs {
		if q.F1 != nil {
			agg.Add("f1", q.Category, *q.F1)
			agg.Add("f1_set", q.Category, *q.F1Set)
			agg.Add("bleu1", q.Category, *q.BLEU1)
		}
		if q.Recall == nil {
			continue
		}
		for _, k := range ks {
			if v, ok := q.Recall[fmt.Sprint(k)]; ok {
				agg.Add(fmt.Sprintf("recall@%d", k), q.Category, v)
				agg.Add(fmt.Sprintf("hit@%d", k), q.Category, q.Hit[fmt.Sprint(k)])
			}
		}
		// Recomputed rather than read from RR, so that files written
		// before RR was recorded summarise the same.
		agg.Add("mrr", q.Category, locomo.ReciprocalRank(q.Retrieved, q.Evidence))
		agg.Add("recall@context", q.Category, q.Recall["context"])
		agg.Add("context_items", q.Category, float64(len(q.Retrieved)))
		agg.Add("context_tokens", q.Category, float64(q.ContextTokens))
	}
	s := Scores{Means: map[string]map[string]float64{}, Counts: map[string]int{}}
	for _, row := range agg.Rows() {
		cat := catKey(row.Category)
		if s.Means[cat] == nil {
			s.Means[cat] = map[string]float64{}
		}
		s.Means[cat][row.Metric] = row.Mean
		// The last metric of a category is a context one: its n is the
		// questions with evidence.
		s.Counts[cat] = row.N
	}
	return s
}

// catKey is a category's key in Scores: "1".."5", "1-4" for the pool.
func catKey(c int) string {
	if c == locomo.OverallCategory {
		return "1-4"
	}
	return fmt.Sprint(c)
}

// WriteJSON writes the results file.
func (r *Results) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteTable writes Markdown tables comparing modes: recall@k per
// category with the other cut-offs and MRR, each category's recall@5,
// recall@k and MRR, the answer scores, the ingests, and the
// cross-validation when there is one.
func (r *Results) WriteTable(w io.Writer, k int) error {
	cats := []string{"1", "2", "3", "4", "1-4"}
	fmt.Fprintf(w, "recall@%d by category (official mapping: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop); n = questions with evidence\n\n", k)
	fmt.Fprintf(w, "| mode | %s | recall@1 | recall@5 | recall@25 | recall@50 | MRR | whole context: recall (items) | context tokens | search p50 ms |\n", strings.Join(labels(cats, r), " | "))
	fmt.Fprintf(w, "|---|%s---|---|---|---|---|---|---|---|\n", strings.Repeat("---|", len(cats)))
	metric := fmt.Sprintf("recall@%d", k)
	for _, mode := range r.Config.Modes {
		s := r.Summary[mode]
		var cells []string
		for _, c := range cats {
			cells = append(cells, fmt.Sprintf("%.3f", s[c][metric]))
		}
		p50 := 0.0
		for _, ss := range r.Search {
			if ss.Mode == mode {
				p50 = ss.PerQuery.P50
			}
		}
		o := s["1-4"]
		fmt.Fprintf(w, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f (%.1f) | %.0f | %.1f |\n", mode, strings.Join(cells, " | "),
			o["recall@1"], o["recall@5"], o["recall@25"], o["recall@50"], o["mrr"], o["recall@context"], o["context_items"], o["context_tokens"], p50)
	}
	fmt.Fprintln(w)
	r.writeCategories(w, k)
	if r.Config.Answerer != "" {
		fmt.Fprintf(w, "answers by %s: official LoCoMo F1 by category (5 = adversarial), then the A-Mem harness's set F1 and BLEU-1 over 1-4\n\n", r.Config.Answerer)
		fmt.Fprintln(w, "| mode | F1 1 | F1 2 | F1 3 | F1 4 | F1 5 | F1 1-4 | set-F1 1-4 | BLEU-1 1-4 |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
		for _, mode := range r.Config.Modes {
			s := r.Summary[mode]
			fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", mode,
				s["1"]["f1"], s["2"]["f1"], s["3"]["f1"], s["4"]["f1"], s["5"]["f1"], s["1-4"]["f1"], s["1-4"]["f1_set"], s["1-4"]["bleu1"])
		}
		fmt.Fprintln(w)
	}
	for _, in := range r.Ingest {
		fmt.Fprintf(w, "ingest %s: %d notes in %.0f s (p50 %.1f ms, p95 %.1f ms per note), %d links, %d failed\n",
			in.Store, in.Notes, in.Seconds, in.PerNote.P50, in.PerNote.P95, in.Links, in.Failed)
	}
	if r.CV != nil {
		fmt.Fprintln(w)
		r.CV.writeTable(w, k)
	}
	return nil
}

// categoryKeys are the rows of a per-category table, in order.
var categoryKeys = []string{"1", "2", "3", "4", "5", "1-4"}

// writeCategories writes each mode's context-list metrics per category,
// the adversarial category (5) included where its questions have evidence.
func (r *Results) writeCategories(w io.Writer, k int) {
	fmt.Fprintf(w, "by category (MRR: reciprocal rank of the first evidence turn in the context list, averaged over questions)\n\n")
	fmt.Fprintf(w, "| mode | category | n | recall@5 | recall@%d | MRR | whole context: recall |\n|---|---|---|---|---|---|---|\n", k)
	at := fmt.Sprintf("recall@%d", k)
	for _, mode := range r.Config.Modes {
		for _, c := range categoryKeys {
			m, n := r.Summary[mode][c], r.Counts[mode][c]
			if _, ok := m[at]; !ok {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f |\n", mode, categoryLabel(c), n, m["recall@5"], m[at], m["mrr"], m["recall@context"])
		}
	}
	fmt.Fprintln(w)
}

// categoryLabel names a category key: "1 multi-hop", ..., "1-4 overall".
func categoryLabel(c string) string {
	if c == "1-4" {
		return locomo.CategoryLabel(locomo.OverallCategory)
	}
	var n int
	fmt.Sscan(c, &n)
	return locomo.CategoryLabel(n)
}

func labels(cats []string, r *Results) []string {
	var n map[string]int
	if len(r.Config.Modes) > 0 {
		n = r.Counts[r.Config.Modes[0]]
	}
	out := make([]string, len(cats))
	for i, c := range cats {
		out[i] = fmt.Sprintf("%s (n=%d)", c, n[c])
	}
	return out
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
