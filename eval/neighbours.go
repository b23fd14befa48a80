package eval

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	factrules "github.com/amem-dev/amem/internal/facts"
	"github.com/amem-dev/amem/locomo"
)

// The real-neighbour set (testdata/supersede/neighbours.jsonl): pairs the
// offline curator was really shown in a store, a new note and one of its
// candidates, labelled like the written pairs. LABELLING.md there says
// how they were collected. LoCoMo's notes are named by ID only and read
// from the LoCoMo file at run time.

// NeighbourNote is one side of a real-neighbour pair: a note's ID in its
// set and, except for LoCoMo's, its text.
type NeighbourNote struct {
	ID   string `json:"id"`
	Text string `json:"text,omitempty"`
}

// NeighbourPair is a candidate the curator was shown (Old) with the new
// note (New), labelled.
type NeighbourPair struct {
	ID      string        `json:"id"`
	Round   int           `json:"round"`
	Set     string        `json:"set"`
	Sampled string        `json:"sampled"`
	Label   string        `json:"label"`
	Shape   string        `json:"shape,omitempty"`
	Old     NeighbourNote `json:"old"`
	New     NeighbourNote `json:"new"`
	Note    string        `json:"note,omitempty"`
}

// Key names a pair by its set and its two notes' IDs.
func (p NeighbourPair) Key() string { return p.Set + "\n" + p.Old.ID + "\n" + p.New.ID }

// HeldOut says whether the pair is in the held-out half (the hash of its
// key).
func (p NeighbourPair) HeldOut() bool { return HeldOut(p.Key()) }

//go:embed testdata/supersede/neighbours.jsonl
var neighbourPairsJSONL []byte

// NeighbourPairs returns the real-neighbour pairs, LoCoMo's texts read
// from convs; skipped counts the LoCoMo pairs convs does not hold (all of
// them without a LoCoMo file).
func NeighbourPairs(convs []locomo.Conversation) (pairs []NeighbourPair, skipped int, err error) {
	obs := map[string]string{}
	for _, c := range convs {
		for i, o := range c.Observations {
			obs[fmt.Sprintf("%s/obs%03d", c.SampleID, i)] = o.Text
		}
	}
	dec := json.NewDecoder(bytes.NewReader(neighbourPairsJSONL))
	dec.DisallowUnknownFields()
	for dec.More() {
		var p NeighbourPair
		if err := dec.Decode(&p); err != nil {
			return nil, 0, fmt.Errorf("neighbour pairs: %w", err)
		}
		if !knownLabel(p.Label) {
			return nil, 0, fmt.Errorf("neighbour pair %s: label %q", p.ID, p.Label)
		}
		if p.Set == "locomo-facts" {
			o, okOld := obs[p.Old.ID]
			n, okNew := obs[p.New.ID]
			if !okOld || !okNew {
				skipped++
				continue
			}
			p.Old.Text, p.New.Text = o, n
		} else if p.Old.Text == "" || p.New.Text == "" {
			return nil, 0, fmt.Errorf("neighbour pair %s: a note without its text", p.ID)
		}
		pairs = append(pairs, p)
	}
	return pairs, skipped, nil
}

// NeighbourResult is one real-neighbour pair's verdict.
type NeighbourResult struct {
	NeighbourPair
	HeldOut    bool    `json:"held_out"`
	Cosine     float64 `json:"cosine"`
	Supersedes bool    `json:"supersedes"`
	Reason     string  `json:"reason"`
}

// RunNeighbours embeds both notes of every pair and runs the
// supersession rule. The notes carry no times: the older was stored
// first.
func RunNeighbours(ctx context.Context, pairs []NeighbourPair, cfg SupersedeConfig) ([]NeighbourResult, error) {
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.Old.Text, p.New.Text)
	}
	vecs, err := embedPairs(ctx, cfg.Embedder, texts, "neighbours")
	if err != nil {
		return nil, err
	}
	out := make([]NeighbourResult, len(pairs))
	for i, p := range pairs {
		cos := cosine(vecs[2*i], vecs[2*i+1])
		sup, why := factrules.Supersedes(factrules.Note{Text: p.Old.Text}, factrules.Note{Text: p.New.Text}, cos)
		out[i] = NeighbourResult{NeighbourPair: p, HeldOut: p.HeldOut(), Cosine: cos, Supersedes: sup, Reason: why}
	}
	return out, nil
}

// WriteNeighbourTable writes the supersession rule's precision (with its
// 95% Wilson interval) and recall on the real-neighbour pairs, per half
// and round, then per half and set. Recall counts only the labelled
// pairs: every pair the rule fires on is labelled, but of the pairs it
// does not fire on only a sample is (LABELLING.md).
func WriteNeighbourTable(w io.Writer, rs []NeighbourResult, skipped int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "| neighbours | half | pairs | precision | 95%% interval | recall | TP | FP | FN |\n|---|---|---|---|---|---|---|---|---|\n")
	row := func(group, half string, keep func(NeighbourResult) bool) {
		var s PRScore
		for _, r := range rs {
			if !keep(r) {
				continue
			}
			s.N++
			switch yes, want := r.Supersedes, r.Label == LabelSupersede; {
			case yes && want:
				s.TP++
			case yes:
				s.FP++
			case want:
				s.FN++
			}
		}
		interval := "-"
		if lo, hi := wilson(s.TP, s.TP+s.FP); !math.IsNaN(lo) {
			interval = fig(lo) + "-" + fig(hi)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %d | %d | %d |\n", group, half, s.N, fig(s.Precision()), interval, fig(s.Recall()), s.TP, s.FP, s.FN)
	}
	for _, held := range []bool{true, false} {
		half := HalfTuning
		if held {
			half = HalfHeldOut
		}
		for _, round := range []int{1, 2, 3, 0} {
			group := "rounds 1-3"
			if round > 0 {
				group = "round " + strconv.Itoa(round)
			}
			row(group, half, func(r NeighbourResult) bool {
				return r.HeldOut == held && r.Round < wholeRound && (round == 0 || r.Round == round)
			})
		}
		for _, set := range []string{"agent", "locomo-facts", "agent+updates"} {
			row(set, half, func(r NeighbourResult) bool { return r.HeldOut == held && r.Set == set })
		}
	}
	// Rounds 4 and 5 are each held out whole: each was the test of the
	// rule written before it (v5, v6), tuned on none of it.
	for round := wholeRound; round <= lastRound; round++ {
		name := "round " + strconv.Itoa(round)
		row(name, "whole (test)", func(r NeighbourResult) bool { return r.Round == round })
		for _, s := range []string{"fires", "others"} {
			row(name+", "+s, "whole (test)", func(r NeighbourResult) bool { return r.Round == round && r.Sampled == s })
		}
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "\n%d locomo-facts pairs left out: their notes are read from the LoCoMo file (--locomo).\n", skipped)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wholeRound is the first round of the real-neighbour pairs held out
// whole (LABELLING.md, Rounds 4 and 5), lastRound the last: the rows by
// half leave them out.
const (
	wholeRound = 4
	lastRound  = 5
)

// wilson is the 95% Wilson score interval of k successes in n; NaN for
// none.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	const z = 1.96
	p, nn := float64(k)/float64(n), float64(n)
	c := (p + z*z/(2*nn)) / (1 + z*z/nn)
	h := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / (1 + z*z/nn)
	return c - h, c + h
}
