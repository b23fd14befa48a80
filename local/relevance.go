package local

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/amem-dev/amem/memory"
)

// relevanceJSON are the relevance curves of the offline default (what a
// search's Score means: amem.Relevance), fitted on the tuning halves of
// the evaluation suite's sets with use-lite vectors and the offline
// curator, written by
//
//	amem-eval suite --locomo locomo-dev.json --fit-relevance local/relevance.json
//
// Their cosine weights are use-lite's cosines, so they suit that
// embedder only; amem.DefaultRelevance holds the same numbers.
//
//go:embed relevance.json
var relevanceJSON []byte

// Relevance is the relevance curves that suit the named embedder
// (memory.Options.Search.Relevance): the shipped ones for use-lite (and ""), nil
// (amem.DefaultRelevance) for the others, whose cosines run on another
// scale. The error is for a relevance.json that does not validate, which
// TestShippedRelevance rules out.
func Relevance(embedder string) (*memory.Relevance, error) {
	switch embedder {
	case "", EmbedderUSELite:
	default:
		return nil, nil
	}
	var r memory.Relevance
	if err := json.Unmarshal(relevanceJSON, &r); err != nil {
		return nil, fmt.Errorf("local: relevance.json: %w", err)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("local: relevance.json: %w", err)
	}
	return &r, nil
}
