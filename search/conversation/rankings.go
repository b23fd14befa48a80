package conversation

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/amem-dev/amem/lexindex"
	"github.com/amem-dev/amem/search"
)

// The profile can fuse three more rankings, each derived from a first
// fusion of the vector and full-text rankings, each with its own weight
// (Weights.Reply, Feedback, Dense; memory's Options.Search.ReplyWeight
// and the rest; off unless set).
//
// Replies. In a conversation the answer is often the note right after
// the one the question matches: "What did Melanie paint?" matches
// Caroline's "what have you been painting?", and the evidence is
// Melanie's reply, which may name none of the question's words. The reply
// ranking puts, at each place of the first fusion, the note written right
// after that hit (the next ID in the namespace) if it was said within
// replyWindow of it: the follow-up of a matching note rises, by the
// weight given, without pushing out a note that matches itself.
//
// Feedback. Pseudo-relevance feedback on the full-text side: the
// keywords of the first fusion's best feedbackDocs notes, which the
// curator chose as what those notes are about, are searched as a second
// full-text query, and its ranking is fused with the rest. It reaches
// notes that say the same thing as the first hits in other words. Dense
// feedback is the same on the vector side (Rocchio's): the notes nearest
// the mean of the first hits' embeddings.

// Spread over days. A question about what someone did over months wants
// one note from each of several days, where the fused ranking tends to
// fill its first places with one conversation's turns around the best
// match. With a day spread s, the hits are picked greedily from the
// fusion read to depth, each note's fused score multiplied by (1 - s)
// for every note of the same day picked before it.

// replyWindow is how far apart in event time a note and the next one may
// be and still count as a reply: a conversation's turns, not tomorrow's
// unrelated memory.
const replyWindow = time.Hour

// replyHits is how many of the first fusion's hits have their reply
// looked up, for any k (so that the first hits do not depend on it): the
// reply of a hit past the first twenty gains at most a weight/80, which
// seldom lifts a note into the first ten.
const replyHits = 20

// feedbackDocs is how many of the first hits give their keywords to the
// feedback query: the first few are the likeliest to be on topic.
const feedbackDocs = 3

// extraRankings returns the extra rankings that w turns on, from first,
// the first fusion read to depth, the weights to fuse them with, and
// their names (rankingNames). Replies are looked up for the first
// replyHits hits.
func extraRankings(ctx context.Context, src Source, first []search.Hit, depth int, w Weights, allow func(string) bool) ([][]search.Hit, []float64, []string, error) {
	if !w.extra() || len(first) == 0 {
		return nil, nil, nil, nil
	}
	var rankings [][]search.Hit
	var weights []float64
	var names []string
	ids := search.IDs(first[:min(feedbackDocs, len(first))])
	if w.Reply > 0 {
		rankings, weights, names = append(rankings, Replies(src, first[:min(len(first), replyHits)], allow)), append(weights, w.Reply), append(names, "reply")
	}
	if w.Feedback > 0 {
		rankings, weights, names = append(rankings, feedback(src, ids, depth, allow)), append(weights, w.Feedback), append(names, "feedback")
	}
	if w.Dense > 0 {
		fb, err := denseFeedback(ctx, src, ids, depth)
		if err != nil {
			return nil, nil, nil, err
		}
		rankings, weights, names = append(rankings, fb), append(weights, w.Dense), append(names, "dense")
	}
	return rankings, weights, names, nil
}

// Replies is the reply ranking: for each hit of first in order, the
// note written after it (lexindex.Index.Next: by ID, as IDs grow with
// the time of writing) if it is a reply to it (see replyWindow), passes
// allow and is not already placed. The full-text index keeps the order
// and the event times: reading them from the store cost about 27 µs a
// hit, 0.5 ms a hybrid search at 100k notes.
func Replies(src Source, first []search.Hit, allow func(string) bool) []search.Hit {
	var out []search.Hit
	src.ReadText(func(ix *lexindex.Index) {
		placed := make(map[string]bool, len(first))
		for _, h := range first {
			next, at, nextAt, ok := ix.Next(h.ID)
			if !ok || placed[next] || (allow != nil && !allow(next)) || !isReply(at, nextAt) {
				continue // deleted since it was ranked, the last note, or no reply
			}
			placed[next] = true
			out = append(out, search.Hit{ID: next, Score: h.Score})
		}
	})
	return out
}

// isReply says whether a note said at next, written after one said at
// at (eventNanos both), was said within replyWindow of it.
func isReply(at, next int64) bool {
	d := next - at
	if (next > at) != (d > 0) && next != at {
		return false // the difference overflowed: far apart
	}
	return d >= -int64(replyWindow) && d <= int64(replyWindow)
}

// feedback is the full-text ranking, to depth, of the keywords of the
// first hits ids, read from the full-text index (lexindex.InKeywords):
// reading the three rows from the store cost about 0.45 ms of CPU a
// search at 100k notes (BenchmarkSearchModes).
func feedback(src Source, ids []string, depth int, allow func(string) bool) []search.Hit {
	var out []search.Hit
	src.ReadText(func(ix *lexindex.Index) {
		var terms []lexindex.QueryTerm
		for _, id := range ids {
			terms = ix.TermsOf(terms, id, lexindex.InKeywords)
		}
		for _, h := range ix.SearchTerms(terms, depth, allow) {
			out = append(out, search.Hit{ID: h.ID, Score: h.Score})
		}
	})
	return out
}

// denseFeedback is the vector ranking, to depth, of the normalised mean
// of the embeddings of the hits ids.
func denseFeedback(ctx context.Context, src Source, ids []string, depth int) ([]search.Hit, error) {
	vecs, err := src.Embeddings(ctx, ids)
	if err != nil {
		return nil, err
	}
	var mean []float64
	for _, v := range vecs {
		if len(v) == 0 || mean != nil && len(v) != len(mean) {
			continue
		}
		if mean == nil {
			mean = make([]float64, len(v))
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		for i, x := range v {
			mean[i] += float64(x) / norm
		}
	}
	if mean == nil {
		return nil, nil
	}
	q := make([]float32, len(mean))
	for i, x := range mean {
		q[i] = float32(x)
	}
	return src.Vectors(q, depth)
}

// spreadOverDays orders the fused hits, best first, by their scores
// damped for each better pick from the same day (UTC date of the event
// time, as the full-text index keeps it): a greedy order, so its first n
// do not depend on how many are wanted.
func spreadOverDays(src Source, fused []search.Hit, spread float64) []search.Hit {
	day := make(map[string]string, len(fused))
	src.ReadText(func(ix *lexindex.Index) {
		for _, h := range fused {
			if t, ok := ix.Time(h.ID); ok && t != 0 {
				day[h.ID] = time.Unix(0, t).UTC().Format(time.DateOnly)
			}
		}
	})
	picked := make(map[string]int) // notes picked per day
	left := slices.Clone(fused)
	out := make([]search.Hit, 0, len(left))
	for len(left) > 0 {
		best, bestV := 0, math.Inf(-1)
		for i, h := range left {
			// Ties keep the fused order, which breaks its own ties by ID.
			if v := h.Score * math.Pow(1-spread, float64(picked[day[h.ID]])); v > bestV {
				best, bestV = i, v
			}
		}
		out = append(out, left[best])
		picked[day[left[best].ID]]++
		left = slices.Delete(left, best, best+1)
	}
	return out
}
