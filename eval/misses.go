package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/offline"
)

// Miss is one evidence turn that was not among the first K of a
// question's context list.
type Miss struct {
	Mode     Mode   `json:"mode"`
	SampleID string `json:"sample_id"`
	Index    int    `json:"index"`
	Category int    `json:"category"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Kind is the question's first word, lower-cased ("what", "when").
	Kind     string `json:"kind"`
	Evidence string `json:"evidence"`
	Turn     string `json:"turn"`
	// Rank is the turn's 1-based place among the deeper search's 50
	// direct hits, 0 when it is not there.
	Rank int `json:"rank"`
	// Linked: a linked note of the context list, past the first K.
	Linked bool `json:"linked"`
	// PrevHit: the turn before it in the conversation was in the first K.
	PrevHit bool `json:"prev_hit"`
	// Shared are the content words (not stopwords, compared stemmed) it
	// shares with the question, the speaker's name left out of the turn.
	Shared []string `json:"shared"`
	Image  bool     `json:"image"` // the turn shares an image (its caption is in the note)
}

// MissCounts tallies evidence turns and misses by a feature.
type MissCounts struct {
	Evidence int `json:"evidence"` // evidence turns
	Missed   int `json:"missed"`
}

// MissSummary counts one mode's misses.
type MissSummary struct {
	Mode       Mode                  `json:"mode"`
	K          int                   `json:"k"`
	ByCategory map[string]MissCounts `json:"by_category"`
	ByKind     map[string]MissCounts `json:"by_kind"`
	// Of the misses: where the turn ranked, and what it looks like.
	RankedTo25     int `json:"ranked_to_25"` // K+1..25
	Ranked26to50   int `json:"ranked_26_to_50"`
	NotIn50        int `json:"not_in_50"`
	Linked         int `json:"linked"`
	PrevHit        int `json:"prev_hit"`
	NoSharedWord   int `json:"no_shared_word"`
	SharesOnlyName int `json:"shares_only_name"` // the only shared words are a speaker's name
	Image          int `json:"image"`
}

// MissReport is the failure analysis --misses writes.
type MissReport struct {
	Summary []MissSummary `json:"summary"`
	Misses  []Miss        `json:"misses"`
}

// Misses lists, for every question with evidence, each evidence turn
// missing from the first k entries of its context list, with what might
// explain it, and counts them per mode.
func Misses(res *Results, convs []locomo.Conversation, k int) MissReport {
	byID := map[string]*locomo.Conversation{}
	for i := range convs {
		byID[convs[i].SampleID] = &convs[i]
	}
	var rep MissReport
	for _, mode := range res.Config.Modes {
		sum := MissSummary{Mode: mode, K: k, ByCategory: map[string]MissCounts{}, ByKind: map[string]MissCounts{}}
		for _, q := range res.Questions {
			c := byID[q.SampleID]
			if q.Mode != mode || len(q.Evidence) == 0 || c == nil {
				continue
			}
			names := speakerWords(c)
			top := q.Retrieved[:min(k, len(q.Retrieved))]
			for _, ev := range q.Evidence {
				kind := questionKind(q.Question)
				missed := !slices.Contains(top, ev)
				tally(sum.ByCategory, fmt.Sprint(q.Category), missed)
				tally(sum.ByKind, kind, missed)
				if !missed {
					continue
				}
				t, _ := c.Turn(ev)
				m := Miss{
					Mode: mode, SampleID: q.SampleID, Index: q.Index, Category: q.Category,
					Question: q.Question, Answer: q.Answer, Kind: kind, Evidence: ev, Turn: t.Content(),
					Rank: rankIn(q.RetrievedDeep, ev, 50), Linked: linkedAt(q, ev, k),
					PrevHit: slices.Contains(top, previousTurn(c, ev)), Image: t.ImageCaption != "",
				}
				m.Shared = sharedWords(q.Question, t.Text+" "+t.ImageCaption)
				rep.Misses = append(rep.Misses, m)
				count(&sum, m, names)
			}
		}
		rep.Summary = append(rep.Summary, sum)
	}
	return rep
}

func tally(m map[string]MissCounts, key string, missed bool) {
	c := m[key]
	c.Evidence++
	if missed {
		c.Missed++
	}
	m[key] = c
}

func count(s *MissSummary, m Miss, names map[string]bool) {
	switch {
	case m.Rank == 0:
		s.NotIn50++
	case m.Rank <= 25:
		s.RankedTo25++
	default:
		s.Ranked26to50++
	}
	if m.Linked {
		s.Linked++
	}
	if m.PrevHit {
		s.PrevHit++
	}
	if m.Image {
		s.Image++
	}
	if len(m.Shared) == 0 {
		s.NoSharedWord++
	} else if !slices.ContainsFunc(m.Shared, func(w string) bool { return !names[w] }) {
		s.SharesOnlyName++
	}
}

// rankIn is id's 1-based place among the first n of list, 0 if absent.
func rankIn(list []string, id string, n int) int {
	if i := slices.Index(list[:min(n, len(list))], id); i >= 0 {
		return i + 1
	}
	return 0
}

// linkedAt says whether id came into the context list, past its first k,
// as a linked note.
func linkedAt(q QuestionResult, id string, k int) bool {
	for i := k; i < len(q.Retrieved) && i < len(q.Kinds); i++ {
		if q.Retrieved[i] == id && q.Kinds[i] == amem.Linked {
			return true
		}
	}
	return false
}

// previousTurn is the dia_id of the turn before id in the conversation,
// "" for the first.
func previousTurn(c *locomo.Conversation, id string) string {
	prev := ""
	for _, t := range c.Turns() {
		if t.DiaID == id {
			return prev
		}
		prev = t.DiaID
	}
	return ""
}

// questionKind is a question's first word, lower-cased.
func questionKind(q string) string {
	if w := words(q); len(w) > 0 {
		return w[0]
	}
	return ""
}

// sharedWords are the content words of a and b in common, by stem, as
// they are written in a.
func sharedWords(a, b string) []string {
	stems := map[string]bool{}
	for _, w := range words(b) {
		if !offline.IsStopword(w) {
			stems[locomo.PorterStem(w)] = true
		}
	}
	var out []string
	for _, w := range words(a) {
		if s := locomo.PorterStem(w); !offline.IsStopword(w) && stems[s] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return nonNil(out)
}

// speakerWords are the words of a conversation's two names, lower-cased.
func speakerWords(c *locomo.Conversation) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(c.SpeakerA + " " + c.SpeakerB) {
		m[w] = true
	}
	return m
}

// words splits s into lower-cased words of letters and digits
// (apostrophes kept inside, so "didn't" is one stopword).
func words(s string) []string {
	s = strings.ReplaceAll(strings.ToLower(s), "’", "'")
	ws := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	for i, w := range ws {
		ws[i] = strings.Trim(strings.TrimSuffix(w, "'s"), "'")
	}
	return slices.DeleteFunc(ws, func(w string) bool { return w == "" })
}

// WriteSummary writes each mode's counts as Markdown.
func (r MissReport) WriteSummary(w io.Writer) {
	for _, s := range r.Summary {
		missed := 0
		for _, c := range s.ByCategory {
			missed += c.Missed
		}
		fmt.Fprintf(w, "%s: %d evidence turns missed at %d; of them %d ranked %d-25, %d ranked 26-50, %d not in the top 50; %d came as linked notes; the turn before was a hit for %d; %d share no content word with the question, %d only a speaker's name; %d are image turns\n\n",
			s.Mode, missed, s.K, s.RankedTo25, s.K+1, s.Ranked26to50, s.NotIn50, s.Linked, s.PrevHit, s.NoSharedWord, s.SharesOnlyName, s.Image)
		fmt.Fprintln(w, "| category | evidence turns | missed | share |\n|---|---|---|---|")
		for _, c := range categoryKeys[:5] {
			if n := s.ByCategory[c]; n.Evidence > 0 {
				fmt.Fprintf(w, "| %s | %d | %d | %.2f |\n", categoryLabel(c), n.Evidence, n.Missed, float64(n.Missed)/float64(n.Evidence))
			}
		}
		fmt.Fprintln(w, "\n| question's first word | evidence turns | missed | share |\n|---|---|---|---|")
		kinds := make([]string, 0, len(s.ByKind))
		for k := range s.ByKind {
			kinds = append(kinds, k)
		}
		slices.SortFunc(kinds, func(a, b string) int { return s.ByKind[b].Evidence - s.ByKind[a].Evidence })
		for _, k := range kinds {
			if n := s.ByKind[k]; n.Evidence >= 5 {
				fmt.Fprintf(w, "| %s | %d | %d | %.2f |\n", k, n.Evidence, n.Missed, float64(n.Missed)/float64(n.Evidence))
			}
		}
		fmt.Fprintln(w)
	}
}

// WriteJSON writes the report.
func (r MissReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
