package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/fakellm"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/offline"
	"github.com/amem-dev/amem/openai"
)

// tiny is a two-session conversation in the LoCoMo shape (also used by
// the CLI's tests).
func tiny(t *testing.T) []locomo.Conversation {
	t.Helper()
	convs, err := locomo.Load(filepath.Join("testdata", "tiny-locomo.json"))
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

func TestRunScoresContextLists(t *testing.T) {
	convs := tiny(t)
	var progress bytes.Buffer
	res, err := Run(context.Background(), convs, Config{
		Modes: []Mode{ModeBM25, ModeVector, ModeAMem, ModeNoLinks}, K: 2,
		Embedder: lexical.New(nil), Progress: &progress, WorkDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Questions) != 4*3 {
		t.Fatalf("%d question rows, want 12", len(res.Questions))
	}
	// Two ingests: raw (bm25, vector) and enriched (amem, amem-no-links).
	if len(res.Ingest) != 2 || res.Ingest[0].Notes != 5 || res.Ingest[1].Store != "enriched" {
		t.Fatalf("ingest %+v", res.Ingest)
	}
	for _, q := range res.Questions {
		if q.SampleID != "conv-x" || len(q.Retrieved) == 0 {
			t.Fatalf("row %+v", q)
		}
		// Recall is recomputable from the file: the stable contract.
		if q.Recall != nil {
			if got := locomo.RecallAt(q.Retrieved, q.Evidence, 1); got != q.Recall["1"] {
				t.Fatalf("recall@1 %v, recomputed %v", q.Recall["1"], got)
			}
		}
		if q.Category == 5 && q.Recall != nil {
			t.Fatal("a question without evidence has recall")
		}
		if q.Mode == ModeBM25 && q.Index == 0 && q.Retrieved[0] != "D1:1" {
			t.Fatalf("bm25 top hit for the puppy question: %v", q.Retrieved)
		}
		if (q.Mode == ModeBM25 || q.Mode == ModeNoLinks) && len(q.Retrieved) > 2 {
			t.Fatalf("%s returned %d items for K=2 without links", q.Mode, len(q.Retrieved))
		}
	}
	if res.Summary[ModeBM25]["1-4"]["recall@50"] != 1 {
		t.Fatalf("bm25 recall@50 on 5 turns should be 1: %v", res.Summary[ModeBM25]["1-4"])
	}
	if res.Counts[ModeBM25]["1-4"] != 2 {
		t.Fatalf("counts %+v", res.Counts)
	}
	var buf bytes.Buffer
	if err := res.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Questions) != 12 {
		t.Fatalf("results file does not round-trip: %v", err)
	}
	var table bytes.Buffer
	res.WriteTable(&table, 2)
	for _, want := range []string{"| bm25 |", "| amem |", "| amem-no-links |", "ingest enriched"} {
		if !strings.Contains(table.String(), want) {
			t.Fatalf("table lacks %q:\n%s", want, table.String())
		}
	}
	png := filepath.Join(t.TempDir(), "recall.png")
	if err := res.WritePlot(png); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("plot is not a PNG: %v", err)
	}
	// A buffer is a log, not a terminal: whole lines, never a redraw.
	if p := progress.String(); !strings.Contains(p, "ingest raw: 5/5 (100%), done") || strings.Contains(p, "\r") {
		t.Fatalf("progress: %q", progress.String())
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if _, err := ParseMode("bm26"); err == nil || !strings.Contains(err.Error(), "bm25") {
		t.Fatalf("bad mode error: %v", err)
	}
}

func TestRunAnswersAndScores(t *testing.T) {
	convs := tiny(t)
	model := &fakellm.Server{Answer: func(prompt string) string {
		switch {
		case strings.Contains(prompt, "name of Ann's puppy"):
			if !strings.Contains(prompt, "[8 May 2023] Ann: I adopted a puppy named Rex") {
				return "no context"
			}
			return "Rex"
		case strings.Contains(prompt, "Not mentioned in the conversation"):
			return "Not mentioned in the conversation"
		}
		return "the violin"
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	chat, err := openai.NewChat(openai.Config{BaseURL: srv.URL + "/v1", Model: fakellm.Model, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), convs, Config{
		Modes: []Mode{ModeBM25}, K: 3, Embedder: lexical.New(nil), WorkDir: t.TempDir(),
		Answerer: chat, AnswererName: "openai:" + fakellm.Model,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range res.Questions {
		if q.Prediction == nil || q.F1 == nil || q.BLEU1 == nil || q.AnswerUsage.PromptTokens != 300 {
			t.Fatalf("question %d not answered: %+v", q.Index, q)
		}
		want := map[int]float64{0: 1, 1: 1, 2: 1}[q.Index] // Rex; violin (stemmed "violin"); adversarial rule
		if *q.F1 != want {
			t.Fatalf("question %d: prediction %q, F1 %v", q.Index, *q.Prediction, *q.F1)
		}
	}
	if res.Summary[ModeBM25]["5"]["f1"] != 1 || res.Summary[ModeBM25]["1-4"]["f1"] != 1 {
		t.Fatalf("summary %v", res.Summary[ModeBM25])
	}
	var table bytes.Buffer
	res.WriteTable(&table, 3)
	if !strings.Contains(table.String(), "answers by openai:fake-model") {
		t.Fatalf("table:\n%s", table.String())
	}
	// Temporal questions see the dates and are asked for one.
	_, user, _ := AnswerPrompt("When did Ann adopt Rex?", locomo.CategoryTemporal, []string{"[8 May 2023] Ann: I adopted a puppy named Rex."})
	if !strings.Contains(user, "Use the dates") || !strings.Contains(user, "[8 May 2023]") {
		t.Fatalf("temporal prompt:\n%s", user)
	}
}

// nsRecorder records the namespaces its curator is asked about.
type nsRecorder struct {
	amem.Curator
	mu  sync.Mutex
	nss map[string]bool
}

func (r *nsRecorder) Construct(ctx context.Context, n amem.Note) (amem.Attributes, error) {
	r.mu.Lock()
	r.nss[n.Namespace] = true
	r.mu.Unlock()
	return r.Curator.Construct(ctx, n)
}

// The ingests of one run share the curator, so each must write namespaces
// of its own: the offline curator keeps statistics per namespace, and the
// no-evolution ingest once decided with the enriched one's.
func TestIngestsKeepApart(t *testing.T) {
	emb := lexical.New(nil)
	rec := &nsRecorder{Curator: offline.New(emb, nil), nss: map[string]bool{}}
	if _, err := Run(context.Background(), tiny(t), Config{
		Modes: []Mode{ModeAMem, ModeNoEvo}, K: 2, Embedder: emb, Curator: rec, WorkDir: t.TempDir(),
	}); err != nil {
		t.Fatal(err)
	}
	if len(rec.nss) != 2 {
		t.Fatalf("the curator saw namespaces %v; want one per ingest", rec.nss)
	}
}
