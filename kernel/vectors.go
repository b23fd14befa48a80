package kernel

import (
	"context"
	"fmt"

	"github.com/amem-dev/amem"

	"github.com/amem-dev/amem/index"
	"github.com/amem-dev/amem/index/hnsw"
)

// vectors is a namespace's vector index: exact (index.Flat) below
// Options.ApproximateFrom notes, approximate (package hnsw) from there.
// Like both, it is not safe for concurrent use: the Space's lock guards
// it. rerank supplies the float vectors the approximate index re-ranks
// its candidates by when it keeps none of its own (no IndexDir: see
// build.go); the exact one ignores it.
type vectors interface {
	search(q []float32, k int, allow func(string) bool, rerank hnsw.Rerank) ([]index.Hit, error)
	// searchAmong ranks only ids, a filter's few matches.
	searchAmong(q []float32, k int, ids []string, rerank hnsw.Rerank) ([]index.Hit, error)
	// similarities scores ids, notes another ranking found, as search
	// would (out[i] 0 and ok[i] false for a note without a vector).
	similarities(q []float32, ids []string, out []float32, ok []bool, rerank hnsw.Rerank) error
	upsert(id string, vec []float32) error
	remove(id string)
	len() int
	bytes() int64
}

type flatVectors struct{ *index.Flat }

func (f flatVectors) search(q []float32, k int, allow func(string) bool, _ hnsw.Rerank) ([]index.Hit, error) {
	return f.Search(q, k, allow)
}

func (f flatVectors) searchAmong(q []float32, k int, ids []string, _ hnsw.Rerank) ([]index.Hit, error) {
	in := make(map[string]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	return f.Search(q, k, func(id string) bool { return in[id] })
}

func (f flatVectors) similarities(q []float32, ids []string, out []float32, ok []bool, _ hnsw.Rerank) error {
	return f.Similarities(q, ids, out, ok)
}

func (f flatVectors) upsert(id string, vec []float32) error { return f.Upsert(id, vec) }
func (f flatVectors) remove(id string)                      { f.Remove(id) }
func (f flatVectors) len() int                              { return f.Len() }

// bytes counts the vectors, as Options.IndexBudget documents.
func (f flatVectors) bytes() int64 { return int64(f.Len()) * int64(f.Dim()) * 4 }

type annVectors struct{ *hnsw.Index }

// annOptions are the kernel's approximate indexes' options: EfSearch is
// Options.ApproximateEf (DefaultApproximateEf, 256, has the figures that
// chose it; the ones below, with re-ranking from the heap, chose 384
// before re-ranking read mapped floats), UpperEf is annUpperEf. On
// BenchmarkScale's
// notes (LoCoMo turns, each repeated with a little noise, so
// near-duplicates by the dozen) at 100k, re-ranked recall@10 over 200
// questions was 0.876 at EfSearch 128, 0.945 at 192, 0.965 at 256 and
// 0.978 at 384, and through Memory.Search over 300 questions 0.937 at
// 256 (2-core shared VM, 2026-12-03); the synthetic set hnsw was tuned
// on has no such clusters. Keeping the pruned candidates in the
// neighbour lists (the paper's keepPrunedConnections) made it worse:
// 0.769 at 128. At 1M that corpus repeats each of its 1,451 turns about
// 690 times, and with the paper's greedy walk down the upper layers only
// 0.59: layer 0 links clusters of near-copies to each other so thinly
// (1% of its links) that a search entering the wrong cluster stays in
// it. UpperEf 64 keeps 64 entry points from the upper layers, where
// clusters are linked (30% of layer 1's links), and takes such a set
// (150 clusters of 690 copies) from 0.62 to 0.98, for about a quarter
// more search time. Notes that are distinct mixes of LoCoMo turns
// (BenchmarkApproximate's mix corpus) need neither: at 100k, recall@10
// 0.990 at EfSearch 128 and 1.000 at 384, the index alone taking 0.28
// and 0.65 ms of CPU per search (re-ranking from memory; UpperEf 64
// included). At 1M mix notes, through Memory.Search on one core: 0.919
// at 128 (1.3 ms CPU p50), 0.972 at 384 (3.0 ms) (BenchmarkApproximate,
// 2026-12-03).
func (k *Kernel) annOptions() *hnsw.Options {
	return &hnsw.Options{EfSearch: k.opts.ApproximateEf, UpperEf: annUpperEf}
}

// annUpperEf is the pool on the approximate index's upper layers: 64
// entry points into layer 0 instead of the paper's one, for clusters of
// near-copies (0.62 -> 0.98 recall@10 at 1M, above).
const annUpperEf = 64

func (a annVectors) search(q []float32, k int, allow func(string) bool, rerank hnsw.Rerank) ([]index.Hit, error) {
	return a.Search(q, k, allow, rerank)
}

// exactAmong is the most matches of a filter that are all re-ranked by
// their float vectors, so that a selective filter's answer is exact, not
// only the int8 codes' best: reading this many vectors from the store
// costs a few milliseconds.
const exactAmong = 1024

func (a annVectors) searchAmong(q []float32, k int, ids []string, rerank hnsw.Rerank) ([]index.Hit, error) {
	kk := k
	if rerank != nil && len(ids) <= exactAmong {
		// SearchAmong re-ranks k*RerankFactor candidates (4 by default):
		// ask for enough that every match is among them.
		kk = max(k, (len(ids)+3)/4)
	}
	hits, err := a.SearchAmong(q, kk, ids, rerank)
	return hits[:min(k, len(hits))], err
}

// similarities re-ranks ids among themselves: the scores come from their
// float vectors where rerank reads them, else from their codes.
func (a annVectors) similarities(q []float32, ids []string, out []float32, ok []bool, rerank hnsw.Rerank) error {
	hits, err := a.searchAmong(q, len(ids), ids, rerank)
	if err != nil {
		return err
	}
	score := make(map[string]float32, len(hits))
	for _, h := range hits {
		score[h.ID] = h.Score
	}
	for i, id := range ids {
		out[i], ok[i] = score[id]
	}
	return nil
}

func (a annVectors) upsert(id string, vec []float32) error { return a.Upsert(id, vec) }
func (a annVectors) remove(id string)                      { a.Remove(id) }
func (a annVectors) len() int                              { return a.Len() }
func (a annVectors) bytes() int64                          { return a.Bytes() }

// rerank returns the function that gives the approximate index the float
// vectors of candidates it keeps no floats for: one read of the store, in
// a transaction of its own. A note deleted since the index last caught up comes back nil,
// and the index drops it.
func (k *Kernel) Rerank(ctx context.Context, ns string) hnsw.Rerank {
	return func(ids []string) ([][]float32, error) {
		at := make(map[string]int, len(ids))
		for i, id := range ids {
			at[id] = i
		}
		out := make([][]float32, len(ids))
		err := k.view(ctx, func(tx amem.Tx) error {
			return tx.EmbeddingsOf(ns, ids, func(id string, vec []float32) error {
				if i, ok := at[id]; ok {
					out[i] = append([]float32(nil), vec...)
				}
				return nil
			})
		})
		if err != nil {
			return nil, fmt.Errorf("namespace %s: re-rank: %w", ns, err)
		}
		return out, nil
	}
}
