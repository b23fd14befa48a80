//go:build locomo

// This file measures the curator on LoCoMo with the real offline embedder.
// It needs the USE-lite model (AMEM_MODEL_DIR, or `amem model pull`) and the
// development split (AMEM_LOCOMO, default ../../shared/locomo/locomo-dev.json),
// and takes about half a minute on 2 cores:
//
//	go test -tags locomo -run LoCoMo -v ./offline/

package offline

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/uselite"
)

type locomoConv struct {
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
}

// memoEmbedder caches vectors: the variants compared embed many texts alike.
type memoEmbedder struct {
	m     *uselite.Model
	mu    sync.Mutex
	cache map[string][]float32
}

func (e *memoEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var miss []string
	for _, t := range texts {
		if _, ok := e.cache[t]; !ok && !slices.Contains(miss, t) {
			miss = append(miss, t)
		}
	}
	if len(miss) > 0 {
		vs, err := e.m.Embed(ctx, miss)
		if err != nil {
			return nil, err
		}
		for i, t := range miss {
			e.cache[t] = vs[i]
		}
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.cache[t]
	}
	return out, nil
}

func (e *memoEmbedder) Dimensions() int { return e.m.Dimensions() }
func (e *memoEmbedder) Name() string    { return e.m.Name() }

// embedText is the paper's embedding text: content, context, keywords, tags.
func embedText(n amem.Note) string {
	parts := []string{n.Content}
	if n.Context != "" {
		parts = append(parts, n.Context)
	}
	if len(n.Keywords) > 0 {
		parts = append(parts, strings.Join(n.Keywords, ", "))
	}
	if len(n.Tags) > 0 {
		parts = append(parts, strings.Join(n.Tags, ", "))
	}
	return strings.Join(parts, "\n")
}

func TestLoCoMo(t *testing.T) {
	dir, err := uselite.DefaultDir()
	if err != nil {
		t.Skip(err)
	}
	model, err := uselite.Load(dir)
	if err != nil {
		t.Skipf("no USE-lite model: %v", err)
	}
	path := cmp.Or(os.Getenv("AMEM_LOCOMO"), "../../shared/locomo/locomo-dev.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no LoCoMo data: %v", err)
	}
	var convs []locomoConv
	if err := json.Unmarshal(raw, &convs); err != nil {
		t.Fatal(err)
	}
	emb := &memoEmbedder{m: model, cache: map[string][]float32{}}
	for i, conv := range convs {
		for _, mode := range []string{"curator", "top5", "none"} {
			direct, linked, perNote := runLoCoMo(t, emb, conv, mode)
			t.Logf("conversation %d, links %-7s: recall@10 direct %.3f, with links %.3f; %.2f links per note",
				i, mode, direct, linked, perNote)
		}
	}
}

// runLoCoMo ingests one conversation, one note per turn, as Memory does
// (construct, embed, connect with the 10 nearest, evolve and re-embed), then
// asks every question with evidence (categories 1-4) and returns recall of
// the evidence in the top 10 and with linked notes added (up to 3 per hit,
// 10 in all), and the links made per note.
func runLoCoMo(t *testing.T, emb *memoEmbedder, conv locomoConv, mode string) (direct, linked, perNote float64) {
	ctx := context.Background()
	c := New(emb, nil)
	var notes []amem.Note
	for s := 1; ; s++ {
		rawTurns, ok := conv.Conversation[fmt.Sprintf("session_%d", s)]
		if !ok {
			break
		}
		var turns []struct {
			Speaker string `json:"speaker"`
			Text    string `json:"text"`
			DiaID   string `json:"dia_id"`
		}
		var when string
		if err := json.Unmarshal(rawTurns, &turns); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(conv.Conversation[fmt.Sprintf("session_%d_date_time", s)], &when)
		at, err := time.Parse("3:04 pm on 2 January, 2006", when)
		if err != nil {
			t.Fatalf("session %d date %q: %v", s, when, err)
		}
		for _, tn := range turns {
			notes = append(notes, amem.Note{ID: tn.DiaID, Namespace: "locomo", Content: tn.Speaker + ": " + tn.Text, EventTime: at})
		}
	}

	embed1 := func(text string) []float32 {
		v, err := emb.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		return v[0]
	}
	index := map[string]int{}
	var stored []amem.Note
	adj := map[string][]amem.LinkDecision{}
	nLinks := 0
	for _, n := range notes {
		a, err := c.Construct(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		n.Keywords, n.Tags, n.Context = a.Keywords, a.Tags, a.Context
		n.Embedding = embed1(embedText(n))
		var cands []amem.Candidate
		for _, o := range stored {
			cands = append(cands, amem.Candidate{Note: o, Similarity: cosine(n.Embedding, o.Embedding)})
		}
		slices.SortStableFunc(cands, func(a, b amem.Candidate) int { return cmp.Compare(b.Similarity, a.Similarity) })
		cands = cands[:min(len(cands), 10)]
		d, err := c.Connect(ctx, n, cands)
		if err != nil {
			t.Fatal(err)
		}
		switch mode {
		case "top5":
			d = amem.Decision{}
			for i, cd := range cands[:min(len(cands), 5)] {
				d.Links = append(d.Links, amem.LinkDecision{Target: cd.Note.ID, Strength: 1 - float64(i)/10})
			}
		case "none":
			d = amem.Decision{}
		}
		for _, l := range d.Links {
			adj[n.ID] = append(adj[n.ID], l)
			adj[l.Target] = append(adj[l.Target], amem.LinkDecision{Target: n.ID, Strength: l.Strength})
			nLinks++
		}
		for _, e := range d.Evolve {
			o := &stored[index[e.Target]]
			if e.Keywords != nil {
				o.Keywords = e.Keywords
			}
			if e.Tags != nil {
				o.Tags = e.Tags
			}
			if e.Context != nil {
				o.Context = *e.Context
			}
			o.Embedding = embed1(embedText(*o))
		}
		if d.Note != nil {
			n.Tags = d.Note.Tags
			n.Embedding = embed1(embedText(n))
		}
		index[n.ID] = len(stored)
		stored = append(stored, n)
	}
	for id := range adj {
		slices.SortStableFunc(adj[id], func(a, b amem.LinkDecision) int {
			return cmp.Or(cmp.Compare(b.Strength, a.Strength), cmp.Compare(a.Target, b.Target))
		})
	}

	var questions float64
	for _, q := range conv.QA {
		var ev []string
		for _, e := range q.Evidence {
			for _, id := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ' ' }) {
				if _, ok := index[id]; ok {
					ev = append(ev, id)
				}
			}
		}
		if len(ev) == 0 || q.Category == 5 {
			continue
		}
		qv := embed1(q.Question)
		order := make([]int, len(stored))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Compare(cosine(qv, stored[b].Embedding), cosine(qv, stored[a].Embedding))
		})
		got := map[string]bool{}
		for _, i := range order[:min(10, len(order))] {
			got[stored[i].ID] = true
		}
		recall := func() float64 {
			n := 0
			for _, e := range ev {
				if got[e] {
					n++
				}
			}
			return float64(n) / float64(len(ev))
		}
		direct += recall()
		budget := 10
		for _, i := range order[:min(10, len(order))] {
			per := 0
			for _, l := range adj[stored[i].ID] {
				if budget == 0 || per == 3 {
					break
				}
				if !got[l.Target] {
					got[l.Target], budget, per = true, budget-1, per+1
				}
			}
		}
		linked += recall()
		questions++
	}
	return direct / questions, linked / questions, float64(nLinks) / float64(len(stored))
}
