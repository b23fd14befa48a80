package local

// LexicalWeight is the hybrid-search weight of the full-text ranking
// (amem.Options.LexicalWeight) that suits the named embedder.
//
// The offline sentence model ranks LoCoMo evidence far worse than BM25
// over enriched notes (recall@10 0.41 against 0.64), so fusion must lean
// on the full-text side: on the development split, recall@10 over
// categories 1-4 was 0.601 at weight 1, 0.632 at 2, 0.654 at 3, 0.664 at
// 4 and 0.660 at 6, and weights 3-6 beat 1 in each of the 3
// conversations (2026-12-02). An embeddings endpoint's models are
// stronger, so they keep plain fusion; the lexical embedder's vectors are
// themselves word matches, so the weight makes no difference there.
func LexicalWeight(embedder string) float64 {
	switch embedder {
	case "", EmbedderUSELite:
		return 4
	}
	return 1
}
