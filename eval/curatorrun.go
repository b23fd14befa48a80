package eval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/progress"
	"github.com/amem-dev/amem/locomo"
)

// CuratorOutcome is what a curator wrote for one labelled note, scored.
type CuratorOutcome struct {
	ID       string   `json:"id"`
	HeldOut  bool     `json:"held_out"`
	Turn     bool     `json:"turn"`
	Keywords []string `json:"keywords"`
	Tags     []string `json:"tags"`
	Context  string   `json:"context"`
	// KeywordsRight counts the keywords keywordRight accepts; Recalled
	// the labelled keywords found among them.
	KeywordsRight int  `json:"keywords_right"`
	Recalled      int  `json:"recalled"`
	Labelled      int  `json:"labelled"`
	SubjectRight  bool `json:"subject_right"`
	KindRight     bool `json:"kind_right"`
	TagsRight     int  `json:"tags_right"`
}

// RunCurator has cur construct every note of the set as amem would write
// it, each space in its own namespace in the set's order. A LoCoMo
// turn's earlier turns are shown to an amem.Observer curator first, as
// the notes written before it would have been.
func RunCurator(ctx context.Context, cur amem.Curator, notes []CuratorNote, convs []locomo.Conversation, log io.Writer) ([]CuratorOutcome, error) {
	obs, _ := cur.(amem.Observer)
	next := map[string]int{} // a conversation's turns shown so far
	turns := map[string][]locomo.Turn{}
	for _, c := range convs {
		turns[c.SampleID] = c.Turns()
	}
	var out []CuratorOutcome
	if log == nil {
		log = io.Discard
	}
	bar := progress.New(log, "curator", len(notes), progress.Options{})
	for _, n := range notes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if n.Turn() && obs != nil {
			ts := turns[n.Space]
			for ; next[n.Space] < len(ts) && n.Space+"/"+ts[next[n.Space]].DiaID != n.ID; next[n.Space]++ {
				t := ts[next[n.Space]]
				obs.Observe(amem.Note{Namespace: n.Space, Content: t.Content(), EventTime: t.Time})
			}
			next[n.Space]++
		}
		a, err := cur.Construct(ctx, amem.Note{ID: n.ID, Namespace: n.Space, Content: n.Content, EventTime: n.Time})
		if err != nil {
			return nil, fmt.Errorf("eval: construct %s: %w", n.ID, err)
		}
		out = append(out, ScoreCurator(n, a))
		bar.Add(1)
	}
	bar.Done()
	return out, nil
}

// ScoreCurator scores what a curator wrote for n.
func ScoreCurator(n CuratorNote, a amem.Attributes) CuratorOutcome {
	o := CuratorOutcome{ID: n.ID, HeldOut: CuratorHeldOut(n.ID), Turn: n.Turn(), Keywords: a.Keywords, Tags: a.Tags,
		Context: a.Context, Labelled: len(n.Keywords), SubjectRight: subjectRight(a.Context, n), KindRight: kindRight(a.Context, n)}
	for _, k := range a.Keywords {
		if keywordRight(k, n) {
			o.KeywordsRight++
		}
	}
	for _, l := range n.Keywords {
		if recalled(l, a.Keywords) {
			o.Recalled++
		}
	}
	for _, t := range a.Tags {
		if slices.ContainsFunc(n.Tags, func(l string) bool { return strings.EqualFold(l, t) }) {
			o.TagsRight++
		}
	}
	return o
}

// CuratorRow is one row of the curator table: a half of one part of the set.
type CuratorRow struct {
	Half  string `json:"half"`
	Part  string `json:"part"`
	Notes int    `json:"notes"`
	// KeywordPrecision is right keywords over keywords written;
	// KeywordRecall labelled keywords found over labelled keywords.
	KeywordPrecision float64 `json:"keyword_precision"`
	KeywordRecall    float64 `json:"keyword_recall"`
	SubjectAccuracy  float64 `json:"subject_accuracy"`
	// KindAccuracy is the share of contexts that state the note's kind
	// (decision, preference, plan, fact, event) before any other.
	KindAccuracy float64 `json:"kind_accuracy"`
	TagPrecision float64 `json:"tag_precision"`
	TagsGiven    int     `json:"tags_given"`
}

// CuratorRows sums outcomes by half (held-out first) and part: everyday
// statements, LoCoMo turns, and both.
func CuratorRows(outs []CuratorOutcome) []CuratorRow {
	var rows []CuratorRow
	for _, held := range []bool{true, false} {
		for _, part := range []string{"statements", "turns", "all"} {
			r := CuratorRow{Half: map[bool]string{true: "held-out", false: "tuning"}[held], Part: part}
			var kw, kwRight, lab, rec, subj, kinds, tagRight int
			for _, o := range outs {
				if o.HeldOut != held || (part == "statements" && o.Turn) || (part == "turns" && !o.Turn) {
					continue
				}
				r.Notes++
				kw += len(o.Keywords)
				kwRight += o.KeywordsRight
				lab += o.Labelled
				rec += o.Recalled
				if o.SubjectRight {
					subj++
				}
				if o.KindRight {
					kinds++
				}
				r.TagsGiven += len(o.Tags)
				tagRight += o.TagsRight
			}
			if r.Notes == 0 {
				continue
			}
			r.KeywordPrecision, r.KeywordRecall = share(kwRight, kw), share(rec, lab)
			r.SubjectAccuracy, r.TagPrecision = share(subj, r.Notes), share(tagRight, r.TagsGiven)
			r.KindAccuracy = share(kinds, r.Notes)
			rows = append(rows, r)
		}
	}
	return rows
}

// share is a/b, 0 when b is: a curator row with no labelled keyword or
// tag scores nothing rather than NaN.
func share(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// WriteCuratorTable writes rows as the markdown table docs/CURATION.md keeps.
func WriteCuratorTable(w io.Writer, rows []CuratorRow, date time.Time) error {
	var b strings.Builder
	fmt.Fprintf(&b, "curator set, %s\n\n", date.UTC().Format("2006-01-02"))
	b.WriteString("| half | part | notes | keyword precision | keyword recall | subject accuracy | kind stated | tag precision (tags) |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f (%d) |\n", r.Half, r.Part, r.Notes,
			r.KeywordPrecision, r.KeywordRecall, r.SubjectAccuracy, r.KindAccuracy, r.TagPrecision, r.TagsGiven)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
