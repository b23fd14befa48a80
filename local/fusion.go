package local

// LexicalWeight is the hybrid-search weight of the full-text ranking
// (memory.Options.Search.LexicalWeight) that suits the named embedder.
//
// The offline sentence model ranks LoCoMo evidence far worse than BM25
// over enriched notes (recall@10 0.41 against 0.64), so fusion must lean
// on the full-text side: on the development split, recall@10 over
// categories 1-4 was 0.601 at weight 1, 0.632 at 2, 0.654 at 3, 0.664 at
// 4 and 0.660 at 6, and weights 3-6 beat 1 in each of the 3
// conversations (2026-12-02). An embeddings endpoint's models are
// stronger, so they keep plain fusion; the lexical embedder's vectors are
// themselves word matches, so the weight makes no difference there.
//
// With the reply and feedback rankings (ExtraRankings) the full-text side
// wants more weight still: 8 (2026-12-03; see ExtraRankings).
func LexicalWeight(embedder string) float64 {
	switch embedder {
	case "", EmbedderUSELite:
		return 8
	}
	return 1
}

// ExtraRankings are the weights of hybrid search's reply and feedback
// rankings (memory.Options.Search.ReplyWeight, FeedbackWeight) that suit the named
// embedder, with LexicalWeight's full-text weight.
//
// For the offline sentence model they were chosen on LoCoMo's
// development split together with the full-text weight, from lexical
// weight 4, 6, 8, 12, reply weight 0, 0.5, 1, 1.5 and feedback weight 0,
// 1, 2, 3: recall@10 over categories 1-4 went from 0.665 (4, 0, 0) to
// 0.697 (8, 1.5, 2), and from 0.665 to 0.694 with the constants chosen on
// two conversations and scored on the third (mean over the three folds;
// 2026-12-03). The dense feedback ranking and the spread over days
// did not raise the cross-validated figure and stay off. Other embedders
// keep the extra rankings off: they were not measured.
func ExtraRankings(embedder string) (reply, feedback float64) {
	switch embedder {
	case "", EmbedderUSELite:
		return 1.5, 2
	}
	return 0, 0
}
