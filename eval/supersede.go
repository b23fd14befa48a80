package eval

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
	factrules "github.com/amem-dev/amem/internal/facts"
)

// Supersession (issue 30, item 4): does a newer memory make an older one
// stop being true? amem-eval supersede scores facts.Supersedes and the
// restatement rule of enrich/restate.go on the hand-labelled pairs of
// testdata/supersede (LABELLING.md there has the rules).

// Labels of a supersession pair.
const (
	LabelSupersede  = "supersede"
	LabelRestate    = "restate"
	LabelCompatible = "compatible"
	LabelUnrelated  = "unrelated"
)

// PairNote is one side of a pair.
type PairNote struct {
	Text string    `json:"text"`
	Time time.Time `json:"time"`
}

// SupersedePair is an older and a newer note with how the newer bears on
// the older.
type SupersedePair struct {
	ID string `json:"id"`
	// Round is when the pair was written (LABELLING.md, Rounds): round
	// 2's held-out half is the one no version of the rule was measured on
	// before the last.
	Round int      `json:"round"`
	Label string   `json:"label"`
	Shape string   `json:"shape"`
	Old   PairNote `json:"old"`
	New   PairNote `json:"new"`
}

// HeldOut says whether the pair is in the held-out half: the hash of its
// two texts, so that renumbering moves no pair between halves.
func (p SupersedePair) HeldOut() bool { return HeldOut(p.Old.Text + "\n" + p.New.Text) }

//go:embed testdata/supersede/pairs.jsonl
var supersedePairsJSONL []byte

func knownLabel(l string) bool {
	return slices.Contains([]string{LabelSupersede, LabelRestate, LabelCompatible, LabelUnrelated}, l)
}

// SupersedePairs returns the labelled pairs of testdata/supersede.
func SupersedePairs() ([]SupersedePair, error) {
	var out []SupersedePair
	dec := json.NewDecoder(bytes.NewReader(supersedePairsJSONL))
	dec.DisallowUnknownFields()
	for dec.More() {
		var p SupersedePair
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("supersede pairs: %w", err)
		}
		if !knownLabel(p.Label) {
			return nil, fmt.Errorf("supersede pair %s: label %q", p.ID, p.Label)
		}
		if p.Round != 1 && p.Round != 2 {
			return nil, fmt.Errorf("supersede pair %s: round %d", p.ID, p.Round)
		}
		if !p.New.Time.After(p.Old.Time) {
			return nil, fmt.Errorf("supersede pair %s: the newer note is not later", p.ID)
		}
		out = append(out, p)
	}
	return out, nil
}

// SupersedeConfig says how to score the pairs.
type SupersedeConfig struct {
	// Embedder gives the cosines both rules read. Required.
	Embedder amem.Embedder
	// RestatementSimilarity is the restatement rule's cosine floor (the
	// product's default is memory.DefaultRestatementSimilarity); negative
	// turns the rule off, as it does in the engine.
	RestatementSimilarity float64
}

// PairResult is one pair's verdicts.
type PairResult struct {
	SupersedePair
	HeldOut    bool    `json:"held_out"`
	Cosine     float64 `json:"cosine"`
	Supersedes bool    `json:"supersedes"`
	Reason     string  `json:"reason"`
	Restates   bool    `json:"restates"`
	// RestatesWords is the restatement rule's word test alone, without
	// its cosine floor: what the floor costs.
	RestatesWords bool `json:"restates_words"`
}

// SupersedeResults are every pair's verdicts.
type SupersedeResults struct {
	Date  string       `json:"date"`
	Pairs []PairResult `json:"pairs"`
	// Neighbours are the real-neighbour pairs' verdicts, when run.
	Neighbours []NeighbourResult `json:"neighbours,omitempty"`
}

// RunSupersede embeds both notes of every pair and runs both rules.
func RunSupersede(ctx context.Context, pairs []SupersedePair, cfg SupersedeConfig) (SupersedeResults, error) {
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.Old.Text, p.New.Text)
	}
	vecs, err := embedPairs(ctx, cfg.Embedder, texts, "supersede")
	if err != nil {
		return SupersedeResults{}, err
	}
	res := SupersedeResults{Date: time.Now().UTC().Format("2006-01-02")}
	for i, p := range pairs {
		cos := cosine(vecs[2*i], vecs[2*i+1])
		words := enrich.Restates(p.New.Text, p.Old.Text)
		sup, why := factrules.Supersedes(factrules.Note{Text: p.Old.Text, Time: p.Old.Time}, factrules.Note{Text: p.New.Text, Time: p.New.Time}, cos)
		res.Pairs = append(res.Pairs, PairResult{
			SupersedePair: p,
			HeldOut:       p.HeldOut(),
			Cosine:        cos,
			Supersedes:    sup,
			Reason:        why,
			Restates:      cfg.RestatementSimilarity >= 0 && cos >= cfg.RestatementSimilarity && words,
			RestatesWords: words,
		})
	}
	return res, nil
}

// embedPairs embeds the texts of pairs, older then newer note of each,
// one vector a text; what names the caller in errors.
func embedPairs(ctx context.Context, emb amem.Embedder, texts []string, what string) ([][]float32, error) {
	if emb == nil {
		return nil, fmt.Errorf("%s: no embedder", what)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("%s: embed: %w", what, err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%s: embedder returned %d vectors for %d texts", what, len(vecs), len(texts))
	}
	return vecs, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// PRScore is a precision and recall over some pairs.
type PRScore struct {
	TP, FP, FN, N int
}

// Precision is TP/(TP+FP); NaN when the rule said yes to nothing.
func (s PRScore) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

// Recall is TP/(TP+FN); NaN when no pair has the label.
func (s PRScore) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// A SupersedeHalf is the pairs a row of figures covers: one half, of one
// round or of both (Round 0).
type SupersedeHalf struct {
	Name    string
	HeldOut bool
	Round   int
}

// SupersedeHalves are the rows the table reports: round 2's held-out half
// first, the one no version of the rule was measured on before the last
// (testdata/supersede/LABELLING.md, Rounds).
var SupersedeHalves = []SupersedeHalf{
	{"held-out, round 2", true, 2},
	{"held-out, round 1", true, 1},
	{"held-out", true, 0},
	{"tuning", false, 0},
}

func (h SupersedeHalf) has(p PairResult) bool {
	return p.HeldOut == h.HeldOut && (h.Round == 0 || p.Round == h.Round)
}

// Score counts one rule's verdicts against one label over the pairs of a
// half.
func (r SupersedeResults) Score(h SupersedeHalf, label string, said func(PairResult) bool) PRScore {
	var s PRScore
	for _, p := range r.Pairs {
		if !h.has(p) {
			continue
		}
		s.N++
		yes, want := said(p), p.Label == label
		switch {
		case yes && want:
			s.TP++
		case yes:
			s.FP++
		case want:
			s.FN++
		}
	}
	return s
}

func saidSupersedes(p PairResult) bool { return p.Supersedes }
func saidRestates(p PairResult) bool   { return p.Restates }
func saidSameWords(p PairResult) bool  { return p.RestatesWords }

// WriteTable writes the figures for people: both rules' precision and
// recall per half (the restatement rule also without its cosine floor), what each rule said by label (the confusion), and
// the supersession rule's recall by shape.
func (r SupersedeResults) WriteTable(w io.Writer) error {
	var b strings.Builder
	halves := SupersedeHalves
	fmt.Fprintf(&b, "| rule | half | pairs | precision | recall | TP | FP | FN |\n|---|---|---|---|---|---|---|---|\n")
	for _, rule := range []struct {
		name, label string
		said        func(PairResult) bool
	}{{"supersedes", LabelSupersede, saidSupersedes}, {"restates", LabelRestate, saidRestates}, {"restates, words alone", LabelRestate, saidSameWords}} {
		for _, h := range halves {
			s := r.Score(h, rule.label, rule.said)
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %d | %d | %d |\n", rule.name, h.Name, s.N, fig(s.Precision()), fig(s.Recall()), s.TP, s.FP, s.FN)
		}
	}
	labels := []string{LabelSupersede, LabelRestate, LabelCompatible, LabelUnrelated}
	fmt.Fprintf(&b, "\nWhat each rule said, by label (pairs it said yes to / pairs):\n\n| half | rule | %s |\n|---|---|---|---|---|---|\n", strings.Join(labels, " | "))
	for _, h := range halves {
		for _, rule := range []struct {
			name string
			said func(PairResult) bool
		}{{"supersedes", saidSupersedes}, {"restates", saidRestates}, {"restates, words alone", saidSameWords}} {
			var cells []string
			for _, l := range labels {
				yes, n := 0, 0
				for _, p := range r.Pairs {
					if h.has(p) && p.Label == l {
						n++
						if rule.said(p) {
							yes++
						}
					}
				}
				cells = append(cells, fmt.Sprintf("%d / %d", yes, n))
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", h.Name, rule.name, strings.Join(cells, " | "))
		}
	}
	fmt.Fprintf(&b, "\nsupersedes by shape (said yes / pairs; for a supersede shape that is recall, for any other the false alarms):\n\n| label | shape | held-out | tuning |\n|---|---|---|---|\n")
	type key struct{ label, shape string }
	var keys []key
	for _, p := range r.Pairs {
		if k := (key{p.Label, p.Shape}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(labelOrder(a.label), labelOrder(b.label)); c != 0 {
			return c
		}
		return strings.Compare(a.shape, b.shape)
	})
	for _, k := range keys {
		cell := func(held bool) string {
			yes, n := 0, 0
			for _, p := range r.Pairs {
				if p.HeldOut == held && p.Label == k.label && p.Shape == k.shape {
					n++
					if p.Supersedes {
						yes++
					}
				}
			}
			return fmt.Sprintf("%d / %d", yes, n)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", k.label, k.shape, cell(true), cell(false))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func labelOrder(l string) string {
	return fmt.Sprint(slices.Index([]string{LabelSupersede, LabelRestate, LabelCompatible, LabelUnrelated}, l))
}

func fig(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}

// WriteJSON writes every pair's verdicts, for a look at the tuning half's
// errors.
func (r SupersedeResults) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
