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

// tokenCeiling guards the default mode's cost per Add against regressions.
// The target (the A-Mem paper's figure) is 1,200 prompt tokens, which the
// measured prompts miss: the package comment says why and what it'd take.
const tokenCeiling = 1600

// Shape of the measurement: as many notes as the estimate, each
// with the 10 nearest earlier notes as candidates, of which a typical
// decision is assumed to link the first 3 (what the second call of
// TwoCalls then shows).
const (
	measuredNotes  = 100
	candidatesEach = 10
	linkedEach     = 3
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
		measureTokens(t, locomoTexts(t))
	})
	t.Run("synthetic", func(t *testing.T) {
		measureTokens(t, syntheticTexts())
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
// the requests one Add sends in each mode and logs their means. The second
// call of TwoCalls depends on how many candidates the first links, so it
// is given for 3 links down to none (no second call).
func measureTokens(t *testing.T, texts []text) {
	notes := enrichOffline(t, texts)
	construct := meanTokens(t, "construct", notes, func(llm amem.LLM, n amem.Note, _ []amem.Candidate) error {
		_, err := llmcurator.New(llm, nil).Construct(context.Background(), amem.Note{Content: n.Content, EventTime: n.EventTime})
		return err
	}, linkedEach)
	t.Logf("%d notes, %d candidates each; construct: %.0f prompt tokens", len(notes)-candidatesEach, candidatesEach, construct)
	// "" is the default mode, the one held to the ceiling.
	for _, mode := range []llmcurator.ConnectMode{"", llmcurator.OneCall, llmcurator.TwoCalls} {
		for linked := linkedEach; linked >= 0; linked-- {
			label := fmt.Sprintf("connect %s, %d links", cmp.Or(string(mode), "default"), linked)
			connect := meanTokens(t, label, notes, func(llm amem.LLM, n amem.Note, cands []amem.Candidate) error {
				_, err := llmcurator.New(llm, &llmcurator.Options{Connect: mode}).Connect(context.Background(), n, cands)
				return err
			}, linked)
			t.Logf("connect %-7s with %d links: %4.0f prompt tokens; per Add %4.0f", cmp.Or(string(mode), "default"), linked, connect, construct+connect)
			if mode == "" && construct+connect > tokenCeiling {
				t.Errorf("the default mode costs %.0f prompt tokens per Add, over the ceiling of %d", construct+connect, tokenCeiling)
			}
			if mode != llmcurator.TwoCalls {
				break // the prompt does not depend on the answer
			}
		}
	}
}

// meanTokens runs call for each note after the first candidatesEach, with
// its nearest earlier notes as candidates, against a recorder that links
// the first linked of them, and returns the mean estimated prompt tokens of
// the requests made.
func meanTokens(t *testing.T, label string, notes []amem.Note, call func(amem.LLM, amem.Note, []amem.Candidate) error, linked int) float64 {
	var sum float64
	for i := candidatesEach; i < len(notes); i++ {
		llm := &recorder{linked: linked}
		if err := call(llm, notes[i], nearest(notes[i], notes[:i], candidatesEach)); err != nil {
			t.Fatal(err)
		}
		sum += float64(utf8.RuneCountInString(llm.text())) / 4
		dumpPrompt(t, label, i, llm.text())
	}
	return sum / float64(len(notes)-candidatesEach)
}

// dumpPrompt appends one Add's prompt text to $AMEM_PROMPT_DUMP, a JSON
// lines file that scripts/count-tokens.mjs counts with a real tokenizer.
// The line's config names the data set and the call measured, so each
// configuration gets its own mean.
func dumpPrompt(t *testing.T, label string, add int, text string) {
	path := os.Getenv("AMEM_PROMPT_DUMP")
	if path == "" {
		return
	}
	line, err := json.Marshal(map[string]any{"config": t.Name() + "/" + label, "add": add, "text": text})
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
func enrichOffline(t *testing.T, texts []text) []amem.Note {
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
	}
	return notes
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

// recorder answers each curator prompt by its schema, linking the first
// linked candidates and evolving nothing, and keeps the requests.
type recorder struct {
	linked int
	mu     sync.Mutex
	reqs   []amem.LLMRequest
}

func (r *recorder) Complete(_ context.Context, req amem.LLMRequest) (amem.LLMResponse, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	var links []map[string]any
	for i := range r.linked {
		links = append(links, map[string]any{"ref": fmt.Sprintf("M%d", i+1), "reason": "same topic", "strength": 0.7})
	}
	answers := map[string]any{
		"note_attributes":     map[string]any{"keywords": []string{"k"}, "tags": []string{"t"}, "context": "c."},
		"links_and_evolution": map[string]any{"links": links, "evolve": []any{}},
		"links":               map[string]any{"links": links},
		"evolution":           map[string]any{"evolve": []any{}},
	}
	b, err := json.Marshal(answers[req.Schema.Name])
	return amem.LLMResponse{Text: string(b), FinishReason: amem.FinishStop}, err
}

// text is the prompt text of every request made: the system text, the
// messages and the schema sent with them. Its characters/4 estimate the
// prompt tokens.
func (r *recorder) text() string {
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
	return b.String()
}
