package llmcurator_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/llmcurator"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/offline"
)

// Ceilings on the default mode's estimated tokens per Add (prompt and
// completion) guard against regressions. On LoCoMo it is the target, the
// A-Mem paper's figure. The synthetic turns all share a few topics, so the
// offline curator links and evolves more of them than on LoCoMo (5 links
// and 3.8 evolutions per Add, against 3 and 0.8), and they cost more.
const (
	locomoCeiling    = 1200
	syntheticCeiling = 1450
)

// Shape of the measurement: as many notes as the estimate, each
// with the 10 nearest earlier notes as candidates.
const (
	measuredNotes  = 100
	candidatesEach = 10
)

// TestPromptTokens estimates the prompt tokens one Add costs with each
// connect mode: characters/4 over the system text, every message and the
// schema (name, description, JSON), of the real rendered requests. No model
// is called; a model's own tokenizer will count somewhat differently.
// go test -run PromptTokens -v ./llmcurator prints the table.
func TestPromptTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement, not needed in -short runs")
	}
	t.Run("locomo", func(t *testing.T) {
		measureTokens(t, locomoTexts(t), locomoCeiling)
	})
	t.Run("synthetic", func(t *testing.T) {
		measureTokens(t, syntheticTexts(), syntheticCeiling)
	})
}

type text struct {
	content string
	at      time.Time
}

// locomoTexts are the first turns of conv-26 of the LoCoMo development
// split, read from outside the repository (the data is not ours to ship).
func locomoTexts(t *testing.T) []text {
	p := os.Getenv("AMEM_LOCOMO_DATA")
	if p == "" {
		p = filepath.Join("..", "..", "shared", "locomo", "locomo-dev.json")
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("SKIPPING: LoCoMo dev data not found at %s (%v); set AMEM_LOCOMO_DATA to measure on it", p, err)
	}
	convs, err := locomo.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []text
	for _, turn := range convs[0].Turns()[:measuredNotes+candidatesEach] {
		out = append(out, text{turn.Content(), turn.Time})
	}
	return out
}

// syntheticTexts imitate LoCoMo turns (a speaker, two casual sentences or
// an image caption, 160 characters on average as in conv-26) so the
// measurement runs without the data.
func syntheticTexts() []text {
	speakers := []string{"Caroline", "Melanie"}
	topics := []string{"the LGBTQ support group", "my pottery class", "camping with the kids", "the adoption agency", "a charity race", "my new painting", "the violin lessons", "a counseling workshop"}
	asides := []string{"It was really inspiring, and the people there were so welcoming to everyone.", "I felt so accepted there.",
		"The kids loved it and we want to go again next summer, maybe with the dog this time!", "It's been a tough but rewarding journey, and I'm grateful for the support.", "(image: a photo of a lake at sunset)"}
	t0 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var out []text
	for i := range measuredNotes + candidatesEach {
		s := fmt.Sprintf("%s: Last week I spent some time on %s and thought about %s. %s", speakers[i%2], topics[i%len(topics)], topics[(i*3+1)%len(topics)], asides[i%len(asides)])
		out = append(out, text{strings.TrimSpace(s), t0.Add(time.Duration(i/20) * 7 * 24 * time.Hour)})
	}
	return out
}

// measureTokens enriches texts with the offline curator (standing in for
// constructed attributes), then renders, for each of the last measuredNotes,
// the requests one Add sends in each mode and logs their means. The answers
// are what the offline curator decides for the same note and candidates, in
// each schema's shape: the second call of TwoCalls, and every completion,
// depend on them.
func measureTokens(t *testing.T, texts []text, ceiling float64) {
	notes, cur := enrichOffline(t, texts)
	construct := meanTokens(t, "construct", notes, cur, func(llm amem.LLM, n amem.Note, _ []amem.Candidate) error {
		_, err := llmcurator.New(llm, nil).Construct(context.Background(), amem.Note{Content: n.Content, EventTime: n.EventTime})
		return err
	})
	t.Logf("%d notes, %d candidates each; construct: %.0f prompt tokens", len(notes)-candidatesEach, candidatesEach, construct.prompt)
	// "" is the default mode, the one held to the ceiling.
	for _, mode := range []llmcurator.ConnectMode{"", llmcurator.OneCall, llmcurator.TwoCalls} {
		label := "connect " + cmp.Or(string(mode), "default")
		connect := meanTokens(t, label, notes, cur, func(llm amem.LLM, n amem.Note, cands []amem.Candidate) error {
			_, err := llmcurator.New(llm, &llmcurator.Options{Connect: mode}).Connect(context.Background(), n, cands)
			return err
		})
		perAdd := construct.prompt + construct.completion + connect.prompt + connect.completion
		t.Logf("%-15s %4.0f prompt + %3.0f completion tokens; per Add %4.0f (%.1f links, %.1f evolutions)",
			label+":", connect.prompt, connect.completion, perAdd, connect.links, connect.evolutions)
		if mode == "" && perAdd > ceiling {
			t.Errorf("the default mode costs %.0f tokens per Add, over the ceiling of %.0f", perAdd, ceiling)
		}
	}
}

// means are estimated tokens per Add, and the decisions behind them.
type means struct{ prompt, completion, links, evolutions float64 }

// meanTokens runs call for each note after the first candidatesEach, with
// its nearest earlier notes as candidates, against a recorder that answers
// as the offline curator decides, and returns the means of the estimated
// tokens of the requests made and the answers given.
func meanTokens(t *testing.T, label string, notes []amem.Note, cur *offline.Curator, call func(amem.LLM, amem.Note, []amem.Candidate) error) means {
	var sum means
	for i := candidatesEach; i < len(notes); i++ {
		cands := nearest(notes[i], notes[:i], candidatesEach)
		dec, err := cur.Connect(context.Background(), notes[i], cands)
		if err != nil {
			t.Fatal(err)
		}
		llm := newRecorder(notes[i], cands, dec)
		if err := call(llm, notes[i], cands); err != nil {
			t.Fatal(err)
		}
		prompt, completion := llm.text()
		sum.prompt += float64(utf8.RuneCountInString(prompt)) / 4
		sum.completion += float64(utf8.RuneCountInString(completion)) / 4
		sum.links += float64(len(dec.Links))
		sum.evolutions += float64(len(dec.Evolve))
		dumpPrompt(t, label, i, prompt, completion)
	}
	n := float64(len(notes) - candidatesEach)
	return means{sum.prompt / n, sum.completion / n, sum.links / n, sum.evolutions / n}
}

// dumpPrompt appends one Add's prompt and completion texts to
// $AMEM_PROMPT_DUMP, a JSON lines file that scripts/count-tokens.mjs counts
// with a real tokenizer.
// The line's config names the data set and the call measured, so each
// configuration gets its own mean.
func dumpPrompt(t *testing.T, label string, add int, prompt, completion string) {
	path := os.Getenv("AMEM_PROMPT_DUMP")
	if path == "" {
		return
	}
	line, err := json.Marshal(map[string]any{"config": t.Name() + "/" + label, "add": add, "text": prompt, "completion": completion})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

// enrichOffline gives each text an embedding and offline-constructed
// keywords, tags and context, as a namespace's existing notes would have.
func enrichOffline(t *testing.T, texts []text) ([]amem.Note, *offline.Curator) {
	ctx := context.Background()
	emb := lexical.New(nil)
	cur := offline.New(emb, nil)
	notes := make([]amem.Note, len(texts))
	for i, x := range texts {
		n := amem.Note{ID: fmt.Sprintf("%026d", i), Namespace: "m", Content: x.content, EventTime: x.at}
		vecs, err := emb.Embed(ctx, []string{x.content})
		if err != nil {
			t.Fatal(err)
		}
		n.Embedding = vecs[0]
		attrs, err := cur.Construct(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		n.Keywords, n.Tags, n.Context = attrs.Keywords, attrs.Tags, attrs.Context
		notes[i] = n
		cur.Observe(n)
	}
	return notes, cur
}

// nearest returns the k notes of pool closest to n, most similar first.
func nearest(n amem.Note, pool []amem.Note, k int) []amem.Candidate {
	cands := make([]amem.Candidate, len(pool))
	for i, p := range pool {
		cands[i] = amem.Candidate{Note: p, Similarity: cosine(n.Embedding, p.Embedding)}
	}
	slices.SortStableFunc(cands, func(a, b amem.Candidate) int { return cmp.Compare(b.Similarity, a.Similarity) })
	return cands[:min(k, len(cands))]
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// recorder answers each curator prompt as a model might: construction
// with the note's offline-constructed attributes, connection with the
// offline curator's decision, each cut to the properties its schema has.
// It keeps the requests and the answers.
type recorder struct {
	answers map[string]any // by schema name, before the cut
	mu      sync.Mutex
	reqs    []amem.LLMRequest
	texts   []string
}

func newRecorder(n amem.Note, cands []amem.Candidate, dec amem.Decision) *recorder {
	// The curator lists candidates oldest first, M1 to Mk.
	byTime := slices.Clone(cands)
	slices.SortStableFunc(byTime, func(a, b amem.Candidate) int { return a.Note.EventTime.Compare(b.Note.EventTime) })
	ref := make(map[string]string, len(cands))
	for i, c := range byTime {
		ref[c.Note.ID] = fmt.Sprintf("M%d", i+1)
	}
	links := []map[string]any{}
	for _, l := range dec.Links {
		links = append(links, map[string]any{"ref": ref[l.Target], "reason": l.Reason, "strength": math.Round(l.Strength*100) / 100})
	}
	evolve := []map[string]any{}
	for _, e := range dec.Evolve {
		evolve = append(evolve, map[string]any{"ref": ref[e.Target], "context": e.Context, "tags": e.Tags, "keywords": e.Keywords, "reason": e.Reason})
	}
	keywords := n.Keywords
	if len(keywords) == 0 { // the offline curator found none; a model always gives some
		keywords = strings.Fields(n.Content)[:1]
	}
	return &recorder{answers: map[string]any{
		"note_attributes":     map[string]any{"keywords": keywords, "tags": n.Tags, "context": n.Context},
		"links_and_evolution": map[string]any{"links": links, "evolve": evolve},
		"links":               map[string]any{"links": links},
		"evolution":           map[string]any{"evolve": evolve},
	}}
}

func (r *recorder) Complete(_ context.Context, req amem.LLMRequest) (amem.LLMResponse, error) {
	var schema any
	if err := json.Unmarshal(req.Schema.Schema, &schema); err != nil {
		return amem.LLMResponse{}, err
	}
	b, err := json.Marshal(cut(r.answers[req.Schema.Name], schema))
	if err != nil {
		return amem.LLMResponse{}, err
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.texts = append(r.texts, string(b))
	r.mu.Unlock()
	return amem.LLMResponse{Text: string(b), FinishReason: amem.FinishStop}, nil
}

// cut keeps of v what schema describes: the properties of objects, the
// items of arrays.
func cut(v, schema any) any {
	s, _ := schema.(map[string]any)
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		out := map[string]any{}
		for k, sub := range props {
			out[k] = cut(v[k], sub)
		}
		return out
	case []map[string]any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cut(x, s["items"])
		}
		return out
	}
	return v
}

// text is the prompt text of every request made (the system text, the
// messages and the schema sent with them) and the text of every answer.
// Their characters/4 estimate the prompt and completion tokens.
func (r *recorder) text() (prompt, completion string) {
	var b strings.Builder
	for _, q := range r.reqs {
		b.WriteString(q.System)
		for _, m := range q.Messages {
			b.WriteString(m.Content)
		}
		if s := q.Schema; s != nil {
			b.WriteString(s.Name)
			b.WriteString(s.Description)
			b.Write(s.Schema)
		}
	}
	return b.String(), strings.Join(r.texts, "")
}
