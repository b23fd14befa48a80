package lexical

import (
	"context"
	"math"
	"testing"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbedder(t *testing.T) {
	e := New(nil)
	vecs, err := e.Embed(context.Background(), []string{
		"The dog is running in the park",
		"A dog runs through the park",
		"I love eating pizza for dinner",
		"",
		"ＴＨＥ ＤＯＧ is running in the park", // full-width letters: NFKC folds them
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != DefaultDimensions {
			t.Fatalf("vector %d has %d dims", i, len(v))
		}
	}
	if n := cos(vecs[0], vecs[0]); math.Abs(n-1) > 1e-5 {
		t.Fatalf("not normalised: %v", n)
	}
	near, far := cos(vecs[0], vecs[1]), cos(vecs[0], vecs[2])
	if near <= far+0.2 {
		t.Fatalf("similar sentences %.3f vs unrelated %.3f", near, far)
	}
	if cos(vecs[3], vecs[3]) != 0 {
		t.Fatal("empty text should give the zero vector")
	}
	if s := cos(vecs[0], vecs[4]); s < 0.999 {
		t.Fatalf("NFKC variant cosine %.4f", s)
	}
	again, _ := e.Embed(context.Background(), []string{"The dog is running in the park"})
	for i := range again[0] {
		if again[0][i] != vecs[0][i] {
			t.Fatal("not deterministic")
		}
	}
	if New(&Options{Dimensions: 64}).Name() == e.Name() {
		t.Fatal("different settings must have different names")
	}
}

func TestEmbedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(nil).Embed(ctx, []string{"x"}); err == nil {
		t.Fatal("cancelled context not honoured")
	}
}

func BenchmarkEmbed(b *testing.B) {
	e := New(nil)
	texts := []string{"Caroline went to the LGBTQ support group yesterday and it was so powerful."}
	b.ReportAllocs()
	for b.Loop() {
		e.Embed(context.Background(), texts)
	}
}
