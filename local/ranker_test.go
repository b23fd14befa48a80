package local

import (
	"math"
	"reflect"
	"testing"

	"github.com/amem-dev/amem/memory"
)

// The embedded ranker.json parses, validates, and weighs the features
// that carried the cross-validated gain; only use-lite gets it.
func TestShippedRanker(t *testing.T) {
	for _, emb := range []string{"", EmbedderUSELite} {
		r, err := Ranker(emb)
		if err != nil {
			t.Fatalf("Ranker(%q): %v", emb, err)
		}
		if r == nil || r.Validate() != nil || r.About == "" {
			t.Fatalf("Ranker(%q) = %+v", emb, r)
		}
		for _, f := range []string{"fused", "rrf:vector", "rrf:lexical", "speaker", "keywords"} {
			if r.Weights[f] == 0 {
				t.Errorf("the shipped ranker gives %s no weight", f)
			}
		}
		if len(r.Weights) > len(memory.RankFeatureNames()) {
			t.Errorf("%d weights for %d features", len(r.Weights), len(memory.RankFeatureNames()))
		}
	}
	if r, err := Ranker(EmbedderLexical); r != nil || err != nil {
		t.Fatalf("Ranker(lexical) = %v, %v; want none: it was trained on use-lite's scores", r, err)
	}
}

// The embedded relevance.json parses and validates, rises with both the
// cosine and the share, and is what amem.DefaultRelevance rounds; only
// use-lite gets it.
func TestShippedRelevance(t *testing.T) {
	for _, emb := range []string{"", EmbedderUSELite} {
		r, err := Relevance(emb)
		if err != nil || r == nil || r.About == "" {
			t.Fatalf("Relevance(%q) = %+v, %v", emb, r, err)
		}
		if r.Hybrid.Cosine <= 0 || r.Hybrid.Words <= 0 || r.Vector.Cosine <= 0 || r.Lexical.Words <= 0 {
			t.Fatalf("a curve that does not rise: %+v", r)
		}
		d := memory.DefaultRelevance
		for _, pair := range [][2]float64{
			{r.Vector.Bias, d.Vector.Bias}, {r.Vector.Cosine, d.Vector.Cosine}, {r.Lexical.Bias, d.Lexical.Bias},
			{r.Lexical.Words, d.Lexical.Words}, {r.Hybrid.Bias, d.Hybrid.Bias}, {r.Hybrid.Cosine, d.Hybrid.Cosine}, {r.Hybrid.Words, d.Hybrid.Words},
		} {
			if math.Abs(pair[0]-pair[1]) > 0.001 {
				t.Fatalf("amem.DefaultRelevance %+v is not relevance.json's %+v rounded", d, r)
			}
		}
	}
	if r, err := Relevance(EmbedderLexical); r != nil || err != nil {
		t.Fatalf("Relevance(lexical) = %v, %v; want none: fitted on use-lite's cosines", r, err)
	}
}

// ProductOptions puts the shipped ranker in Options.Search.Ranker unless
// Config.NoRanker declines it; a ranker the caller set in the options is
// kept either way (docs/LIBRARY.md, "Which ranker").
func TestProductOptionsRanker(t *testing.T) {
	shipped, err := Ranker(EmbedderUSELite)
	if err != nil {
		t.Fatal(err)
	}
	own := &memory.Ranker{Weights: map[string]float64{"fused": 1}}
	withOwn := memory.Options{Search: memory.SearchOptions{Ranker: own}}
	for _, c := range []struct {
		name string
		cfg  Config
		want *memory.Ranker
	}{
		{"default", Config{}, shipped},
		{"no ranker", Config{NoRanker: true}, nil},
		{"own ranker", Config{Options: withOwn}, own},
		{"own ranker and no ranker", Config{NoRanker: true, Options: withOwn}, own},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Curator = CuratorNone
			opts, err := ProductOptions(c.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := opts.Search.Ranker; !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Search.Ranker = %+v, want %+v", got, c.want)
			}
		})
	}
}
