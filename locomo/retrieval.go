package locomo

// RecallAt is retrieval recall at k: the number of distinct evidence ids
// found among the first k entries of retrieved, divided by the number of
// distinct evidence ids.
//
// retrieved is the ranked context as given (one dia_id per context item);
// duplicates in it are tolerated and occupy positions: the first k entries
// are the first k context items, and an id found twice counts once. When k
// exceeds len(retrieved) all of retrieved is used. RecallAt is 0 when k <= 0
// or evidence is empty; as in the reference numbers, average it only over
// questions that have evidence.
func RecallAt(retrieved, evidence []string, k int) float64 {
	want := distinct(evidence)
	if len(want) == 0 || k <= 0 {
		return 0
	}
	total, found := len(want), 0
	for _, id := range retrieved[:min(k, len(retrieved))] {
		if want[id] {
			delete(want, id)
			found++
		}
	}
	return float64(found) / float64(total)
}

// HitAt is 1 if any evidence id is among the first k entries of retrieved,
// else 0 (also 0 when k <= 0 or evidence is empty). Duplicates and k beyond
// len(retrieved) are handled as in RecallAt.
func HitAt(retrieved, evidence []string, k int) float64 {
	want := distinct(evidence)
	if len(want) == 0 || k <= 0 {
		return 0
	}
	for _, id := range retrieved[:min(k, len(retrieved))] {
		if want[id] {
			return 1
		}
	}
	return 0
}

func distinct(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// ReciprocalRank is 1/r for the 1-based position r of the first evidence id
// in retrieved, 0 when none is there or evidence is empty. Averaged over
// questions it is the mean reciprocal rank (MRR): where recall@k says how
// much of the evidence made the cut, MRR says how near the top the first
// piece of it is.
func ReciprocalRank(retrieved, evidence []string) float64 {
	want := distinct(evidence)
	for i, id := range retrieved {
		if want[id] {
			return 1 / float64(i+1)
		}
	}
	return 0
}
