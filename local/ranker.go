package local

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/amem-dev/amem/memory"
)

// rankerJSON is the learned ranker of the offline default: RankNet
// weights trained on LoCoMo's development split with use-lite vectors
// and the offline curator, written by
//
//	amem-eval locomo --data locomo-dev.json --mode amem --cv --ranker-out local/ranker.json
//
// Its features include use-lite's cosine scores, so it suits that
// embedder only. Cross-validated (each conversation scored by a ranker
// trained on the others) it raised recall@10 over categories 1-4; see
// docs/LOCOMO.md for the figures.
//
//go:embed ranker.json
var rankerJSON []byte

// Ranker is the learned ranker that suits the named embedder
// (memory.Options.Search.Ranker): the shipped one for use-lite (and ""), nil for
// the others, whose scores it was not trained on. The error is for a
// ranker.json that does not validate, which TestShippedRanker rules out.
func Ranker(embedder string) (*memory.Ranker, error) {
	switch embedder {
	case "", EmbedderUSELite:
	default:
		return nil, nil
	}
	var r memory.Ranker
	if err := json.Unmarshal(rankerJSON, &r); err != nil {
		return nil, fmt.Errorf("local: ranker.json: %w", err)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("local: ranker.json: %w", err)
	}
	return &r, nil
}
