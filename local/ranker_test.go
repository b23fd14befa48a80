package local

import (
	"testing"

	"github.com/amem-dev/amem"
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
		if len(r.Weights) > len(amem.RankFeatureNames()) {
			t.Errorf("%d weights for %d features", len(r.Weights), len(amem.RankFeatureNames()))
		}
	}
	if r, err := Ranker(EmbedderLexical); r != nil || err != nil {
		t.Fatalf("Ranker(lexical) = %v, %v; want none: it was trained on use-lite's scores", r, err)
	}
}
