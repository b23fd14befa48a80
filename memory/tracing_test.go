package memory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem/memory"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
)

// spanTree indexes recorded spans by name and by span ID.
type spanTree struct {
	byName map[string][]sdktrace.ReadOnlySpan
	byID   map[string]sdktrace.ReadOnlySpan
}

func newSpanTree(spans []sdktrace.ReadOnlySpan) spanTree {
	t := spanTree{byName: map[string][]sdktrace.ReadOnlySpan{}, byID: map[string]sdktrace.ReadOnlySpan{}}
	for _, s := range spans {
		t.byName[s.Name()] = append(t.byName[s.Name()], s)
		t.byID[s.SpanContext().SpanID().String()] = s
	}
	return t
}

// parent is the name of a span's parent ("" for a root).
func (t spanTree) parent(s sdktrace.ReadOnlySpan) string {
	if p, ok := t.byID[s.Parent().SpanID().String()]; ok {
		return p.Name()
	}
	return ""
}

func attr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func intAttr(t *testing.T, s sdktrace.ReadOnlySpan, key string) int64 {
	t.Helper()
	v, ok := attr(s, key)
	if !ok {
		t.Fatalf("span %s has no %s; it has %v", s.Name(), key, s.Attributes())
	}
	return v.AsInt64()
}

// TestTracing checks the spans of an Add with enrichment and of a Search:
// their names, parents and counts, and that no attribute holds a word of
// a note or of the query.
func TestTracing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cur := &mock.Curator{
		ConstructFunc: func(_ context.Context, n amem.Note) (amem.Attributes, error) {
			return amem.Attributes{Keywords: []string{"drink"}, Usage: amem.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
		},
		ConnectFunc: func(_ context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
			var d amem.Decision
			for _, c := range cands {
				d.Links = append(d.Links, amem.LinkDecision{Target: c.Note.ID, Strength: 1})
			}
			d.Usage = amem.Usage{PromptTokens: 20, CompletionTokens: 7}
			return d, nil
		},
	}
	mem := openOpts(t, filepath.Join(t.TempDir(), "amem.db"),
		memory.Options{Embedder: lexical.New(nil), Curator: cur, TracerProvider: tp, Logger: quiet})
	t.Cleanup(func() { mem.Close() })
	ctx := context.Background()
	secrets := []string{"zanzibar", "quokka", "marmalade"}
	var all []sdktrace.ReadOnlySpan // every span, for noSecrets
	mustAdd(t, mem, "alice", "zanzibar quokka tea")
	all = append(all, rec.Ended()...)
	rec.Reset()
	second := mustAdd(t, mem, "alice", "zanzibar marmalade tea")

	tree := newSpanTree(rec.Ended())
	adds := tree.byName["amem.Add"]
	if len(adds) != 1 || tree.parent(adds[0]) != "" {
		t.Fatalf("amem.Add spans: %v", adds)
	}
	if v, _ := attr(adds[0], "amem.note.id"); v.AsString() != second.ID {
		t.Errorf("amem.Add note ID %q, want %q", v.AsString(), second.ID)
	}
	if v, _ := attr(adds[0], "amem.namespace"); v.AsString() != "alice" {
		t.Errorf("amem.Add namespace %q", v.AsString())
	}
	if n := intAttr(t, adds[0], "amem.batch.size"); n != 1 {
		t.Errorf("batch size %d", n)
	}
	for name, parent := range map[string]string{
		"amem.enrich": "amem.Add", "amem.construct": "amem.enrich",
		"amem.connect": "amem.enrich", "amem.store": "amem.enrich",
	} {
		spans := tree.byName[name]
		if len(spans) != 1 {
			t.Fatalf("%d %s spans, want 1", len(spans), name)
		}
		if p := tree.parent(spans[0]); p != parent {
			t.Errorf("%s is a child of %q, want %q", name, p, parent)
		}
	}
	if n := intAttr(t, tree.byName["amem.construct"][0], "gen_ai.usage.input_tokens"); n != 10 {
		t.Errorf("construct input tokens %d, want 10", n)
	}
	conn := tree.byName["amem.connect"][0]
	if n := intAttr(t, conn, "amem.candidates"); n != 1 {
		t.Errorf("connect candidates %d, want 1", n)
	}
	if n := intAttr(t, conn, "amem.links"); n != 1 {
		t.Errorf("connect links %d, want 1", n)
	}
	if n := intAttr(t, conn, "gen_ai.usage.output_tokens"); n != 7 {
		t.Errorf("connect output tokens %d, want 7", n)
	}
	embeds := tree.byName["amem.embed"]
	if len(embeds) == 0 || tree.parent(embeds[0]) != "amem.Add" {
		t.Fatalf("the new note's embedding: %d amem.embed spans, first under %q", len(embeds), tree.parent(embeds[0]))
	}
	if n := intAttr(t, embeds[0], "amem.texts"); n != 1 {
		t.Errorf("embed texts %d, want 1", n)
	}

	all = append(all, rec.Ended()...)
	rec.Reset()
	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "alice", Query: "quokka", Mode: amem.SearchLexical, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	tree = newSpanTree(rec.Ended())
	searches := tree.byName["amem.Search"]
	if len(searches) != 1 {
		t.Fatalf("%d amem.Search spans", len(searches))
	}
	s := searches[0]
	if v, _ := attr(s, "amem.search.mode"); v.AsString() != "lexical" {
		t.Errorf("search mode %q", v.AsString())
	}
	if n := intAttr(t, s, "amem.search.k"); n != 3 {
		t.Errorf("search k %d", n)
	}
	if n := intAttr(t, s, "amem.search.hits"); n != int64(len(res)) || n == 0 {
		t.Errorf("search hits %d, %d results", n, len(res))
	}
	// Its phases: the full-text index, then the store's read of the hits;
	// a lexical search asks no vectors.
	for name, want := range map[string]int{"amem.search.text": 1, "amem.search.read": 1, "amem.search.vectors": 0} {
		spans := tree.byName[name]
		if len(spans) != want || want > 0 && tree.parent(spans[0]) != "amem.Search" {
			t.Errorf("%d %s spans, want %d under amem.Search", len(spans), name, want)
		}
	}
	if n := intAttr(t, tree.byName["amem.search.text"][0], "amem.candidates"); n != 3 {
		t.Errorf("full-text candidates %d, want k", n)
	}

	// A failed search is an error span.
	all = append(all, rec.Ended()...)
	rec.Reset()
	if _, err := mem.Search(ctx, amem.SearchRequest{Namespace: "alice", Query: "quokka", K: -1}); err == nil {
		t.Fatal("k -1 accepted")
	}
	if spans := rec.Ended(); len(spans) != 1 || spans[0].Status().Code.String() != "Error" || len(spans[0].Events()) == 0 {
		t.Errorf("failed search span: %+v", spans)
	}
	noSecrets(t, append(all, rec.Ended()...), secrets...)
}

// noSecrets fails if any attribute or event of the spans holds one of
// the words.
func noSecrets(t *testing.T, spans []sdktrace.ReadOnlySpan, words ...string) {
	t.Helper()
	for _, s := range spans {
		kvs := s.Attributes()
		for _, e := range s.Events() {
			kvs = append(kvs, e.Attributes...)
		}
		for _, kv := range kvs {
			for _, w := range words {
				if strings.Contains(strings.ToLower(kv.Value.Emit()), w) {
					t.Errorf("span %s attribute %s holds %q: %s", s.Name(), kv.Key, w, kv.Value.Emit())
				}
			}
		}
	}
}
