package offline

import (
	"context"
	"reflect"
	"testing"

	"github.com/amem-dev/amem"
)

// recordingHash is the hash embedder that remembers the texts it embeds.
type recordingHash struct {
	hashEmbedder
	texts []string
}

func (r *recordingHash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.texts = append(r.texts, texts...)
	return r.hashEmbedder.Embed(ctx, texts)
}

// A phrase Construct embedded once is taken from the cache next time, and
// the cache changes no decision.
func TestPhraseCache(t *testing.T) {
	emb := &recordingHash{}
	c := New(emb, nil)
	construct(t, c, amem.Note{Content: "warm up the prototypes"})
	note := amem.Note{Namespace: "chat", Content: "Melanie: the pottery class with clay and glazes", Embedding: hashVec("x")}
	emb.texts = nil
	first := construct(t, c, note)
	if len(emb.texts) == 0 {
		t.Fatal("no phrase embedded")
	}
	phrases := emb.texts
	emb.texts = nil
	second := construct(t, c, amem.Note{Namespace: "other", Content: note.Content, Embedding: note.Embedding})
	if len(emb.texts) != 0 {
		t.Errorf("phrases embedded again: %q (first time %q)", emb.texts, phrases)
	}
	if !reflect.DeepEqual(first.Keywords, second.Keywords) || !reflect.DeepEqual(first.Tags, second.Tags) {
		t.Errorf("cached phrases changed the attributes: %+v then %+v", first, second)
	}

	// A new phrase is embedded, the known ones are not.
	emb.texts = nil
	construct(t, c, amem.Note{Namespace: "chat", Content: "Melanie: the pottery class and a violin", Embedding: note.Embedding})
	for _, p := range emb.texts {
		for _, q := range phrases {
			if p == q {
				t.Errorf("%q embedded again", p)
			}
		}
	}

	// Without a cache every Construct embeds its phrases.
	none := &recordingHash{}
	nc := New(none, &Options{PhraseCache: -1})
	construct(t, nc, note)
	none.texts = nil
	construct(t, nc, note)
	if !reflect.DeepEqual(none.texts, phrases) {
		t.Errorf("without a cache embedded %q, want %q", none.texts, phrases)
	}

	// The whole conversation decides the same with and without the cache.
	a1, d1 := run(t, New(&hashEmbedder{}, nil))
	a2, d2 := run(t, New(&hashEmbedder{}, &Options{PhraseCache: -1}))
	if !reflect.DeepEqual(a1, a2) || !reflect.DeepEqual(d1, d2) {
		t.Errorf("the phrase cache changed the curator's output")
	}
}

func TestVecCacheDropsLeastRecentlyUsed(t *testing.T) {
	c := newVecCache(2)
	c.put("a", []float32{1})
	c.put("b", []float32{2})
	c.get("a")
	c.put("c", []float32{3})
	if c.get("b") != nil {
		t.Error("b, least recently used, kept")
	}
	if c.get("a") == nil || c.get("c") == nil {
		t.Error("a or c dropped")
	}
	c.put("a", []float32{4})
	if v := c.get("a"); len(v) != 1 || v[0] != 4 {
		t.Errorf("a = %v after an update", v)
	}
	if len(c.byKey) != 2 || c.order.Len() != 2 {
		t.Errorf("%d keys, %d in order; want 2", len(c.byKey), c.order.Len())
	}
	var none *vecCache = newVecCache(-1)
	none.put("a", []float32{1})
	if none.get("a") != nil {
		t.Error("a disabled cache kept a vector")
	}
}
