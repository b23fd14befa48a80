package memory_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
)

// recordingEmbedder is the lexical embedder that remembers every text it
// embeds.
type recordingEmbedder struct {
	amem.Embedder
	mu    sync.Mutex
	texts []string
}

func (r *recordingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.Embedder.Embed(ctx, texts)
}

// take returns the texts embedded since the last take.
func (r *recordingEmbedder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.texts
	r.texts = nil
	return t
}

func openRecording(t *testing.T, cur amem.Curator, embedText func(amem.Note) string) (*memory.Memory, *recordingEmbedder) {
	t.Helper()
	emb := &recordingEmbedder{Embedder: lexical.New(nil)}
	mem := openOpts(t, filepath.Join(t.TempDir(), "amem.db"), memory.Options{Embedder: emb, Curator: cur, EmbedText: embedText, Logger: quiet})
	t.Cleanup(func() { mem.Close() })
	return mem, emb
}

// An enrichment embeds the note again after Connect only when the
// curator's refinement changed its embedding text.
func TestRefinedNoteReembeddedOnlyWhenItsTextChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		refine func(amem.Note) *amem.Attributes
		again  bool
	}{
		{"no refinement", func(amem.Note) *amem.Attributes { return nil }, false},
		{"same attributes", func(n amem.Note) *amem.Attributes {
			return &amem.Attributes{Keywords: n.Keywords, Tags: n.Tags, Context: n.Context}
		}, false},
		{"a term already there", func(n amem.Note) *amem.Attributes {
			return &amem.Attributes{Keywords: []string{"Caroline"}}
		}, false},
		{"a tag added", func(n amem.Note) *amem.Attributes {
			return &amem.Attributes{Tags: append(slices.Clone(n.Tags), "strengthened")}
		}, true},
		{"a context rewritten", func(n amem.Note) *amem.Attributes {
			return &amem.Attributes{Context: "Refined."}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := &mock.Curator{
				ConstructFunc: func(context.Context, amem.Note) (amem.Attributes, error) {
					return amem.Attributes{Keywords: []string{"caroline"}, Tags: []string{"people"}, Context: "About Caroline."}, nil
				},
				ConnectFunc: func(_ context.Context, n amem.Note, _ []amem.Candidate) (amem.Decision, error) {
					return amem.Decision{Note: tc.refine(n)}, nil
				},
			}
			mem, emb := openRecording(t, cur, nil)
			n := mustAdd(t, mem, "ns", "Caroline went to a support group")
			texts := emb.take()
			constructed := "Caroline went to a support group\nAbout Caroline.\ncaroline\npeople"
			want := []string{"Caroline went to a support group", constructed}
			final := memory.EmbedTextPaper(n)
			if tc.again {
				want = append(want, final)
				if final == constructed {
					t.Fatalf("the refinement did not change the text: %q", final)
				}
			} else if final != constructed {
				t.Fatalf("stored text %q, constructed %q: the refinement changed it", final, constructed)
			}
			if !slices.Equal(texts, want) {
				t.Fatalf("embedded %q, want %q", texts, want)
			}
			assertVectorOf(t, mem, emb, nil, n)
		})
	}
}

// An evolved neighbour is embedded again only when its embedding text
// changed: with EmbedTextContent, new keywords leave its vector as it is.
func TestEvolvedNeighbourReembeddedOnlyWhenItsTextChanged(t *testing.T) {
	for _, tc := range []struct {
		name      string
		embedText func(amem.Note) string
		again     bool
	}{
		{"paper text has the keywords", memory.EmbedTextPaper, true},
		{"content text has not", memory.EmbedTextContent, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := &mock.Curator{
				ConnectFunc: func(_ context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
					var d amem.Decision
					for _, c := range cands {
						d.Evolve = append(d.Evolve, amem.Evolution{Target: c.Note.ID, Keywords: append(slices.Clone(c.Note.Keywords), "evolved")})
					}
					return d, nil
				},
			}
			mem, emb := openRecording(t, cur, tc.embedText)
			a := mustAdd(t, mem, "ns", "Caroline went to a support group")
			before := getNote(t, mem, a.ID)
			emb.take()
			mustAdd(t, mem, "ns", "Caroline went to the support group again")
			texts := emb.take()
			after := getNote(t, mem, a.ID)
			if !slices.Contains(after.Keywords, "evolved") {
				t.Fatalf("a not evolved: %+v", after)
			}
			if got := slices.Contains(texts, tc.embedText(after)); got != tc.again {
				t.Fatalf("a's text %q embedded again: %v, want %v (embedded %q)", tc.embedText(after), got, tc.again, texts)
			}
			if !tc.again && !slices.Equal(after.Embedding, before.Embedding) {
				t.Fatalf("a's vector changed though its text did not")
			}
			assertVectorOf(t, mem, emb, tc.embedText, after)
		})
	}
}

// Update embeds the note only when its embedding text changed.
func TestUpdateReembedsOnlyWhenItsTextChanged(t *testing.T) {
	ctx := context.Background()
	mem, emb := openRecording(t, nil, nil)
	n := mustAdd(t, mem, "ns", "Caroline went to a support group")
	emb.take()
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	tags := []string{"people"}
	content := "Caroline went to the support group again"
	for _, tc := range []struct {
		name  string
		req   amem.UpdateRequest
		again bool
	}{
		{"metadata", amem.UpdateRequest{Metadata: map[string]string{"source": "chat"}}, false},
		{"event time", amem.UpdateRequest{EventTime: &day}, false},
		{"tags", amem.UpdateRequest{Tags: &tags}, true},
		{"content", amem.UpdateRequest{Content: &content}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := getNote(t, mem, n.ID)
			got, err := mem.Update(ctx, "ns", n.ID, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Version != before.Version+1 {
				t.Fatalf("version %d after %d", got.Version, before.Version)
			}
			texts := emb.take()
			if want := tc.again; (len(texts) > 0) != want {
				t.Fatalf("embedded %q; want a new embedding: %v", texts, want)
			}
			after := getNote(t, mem, n.ID)
			if tc.again && !slices.Equal(texts, []string{memory.EmbedTextPaper(after)}) {
				t.Fatalf("embedded %q, want the new text %q", texts, memory.EmbedTextPaper(after))
			}
			assertVectorOf(t, mem, emb, nil, after)
		})
	}
}

// Notes of one batch with the same text are embedded once, and each gets
// the vector.
func TestAddBatchEmbedsARepeatedTextOnce(t *testing.T) {
	mem, emb := openRecording(t, nil, nil)
	notes, err := mem.AddBatch(context.Background(), []amem.AddRequest{
		{Namespace: "ns", Content: "same words"},
		{Namespace: "ns", Content: "other words"},
		{Namespace: "ns", Content: "same words"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if texts := emb.take(); !slices.Equal(texts, []string{"same words", "other words"}) {
		t.Fatalf("embedded %q", texts)
	}
	for _, n := range notes {
		assertVectorOf(t, mem, emb, nil, getNote(t, mem, n.ID))
	}
}

func getNote(t *testing.T, mem *memory.Memory, id string) amem.Note {
	t.Helper()
	n, err := mem.Get(context.Background(), "ns", id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// assertVectorOf checks that the stored vector is the one of the note's
// embedding text.
func assertVectorOf(t *testing.T, mem *memory.Memory, emb *recordingEmbedder, embedText func(amem.Note) string, n amem.Note) {
	t.Helper()
	if embedText == nil {
		embedText = memory.EmbedTextPaper
	}
	stored := getNote(t, mem, n.ID)
	want, err := emb.Embedder.Embed(context.Background(), []string{embedText(stored)})
	if err != nil {
		t.Fatal(err)
	}
	if mem.Embedder() != amem.Embedder(emb) {
		t.Fatal("not the recording embedder")
	}
	if !slices.Equal(stored.Embedding, want[0]) {
		t.Fatalf("note %s: stored vector is not the one of its text %q", n.ID, embedText(stored))
	}
}

// With EmbedTextContent construction leaves a note's embedding text as it
// was, so an Add embeds the note once, before it is stored, and its
// vector is the one the content got then.
func TestContentTextEmbedsANoteOnce(t *testing.T) {
	cur := &mock.Curator{
		ConstructFunc: func(context.Context, amem.Note) (amem.Attributes, error) {
			return amem.Attributes{Keywords: []string{"caroline"}, Tags: []string{"people"}, Context: "About Caroline."}, nil
		},
		ConnectFunc: func(_ context.Context, n amem.Note, _ []amem.Candidate) (amem.Decision, error) {
			return amem.Decision{Note: &amem.Attributes{Context: "Refined."}}, nil
		},
	}
	mem, emb := openRecording(t, cur, memory.EmbedTextContent)
	n := mustAdd(t, mem, "ns", "Caroline went to a support group")
	if texts := emb.take(); !slices.Equal(texts, []string{"Caroline went to a support group"}) {
		t.Fatalf("embedded %q, want the content once", texts)
	}
	if n.Context != "Refined." || !slices.Contains(n.Keywords, "caroline") {
		t.Fatalf("note not enriched: %+v", n)
	}
	assertVectorOf(t, mem, emb, memory.EmbedTextContent, n)
}
