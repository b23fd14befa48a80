package amem

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/amem-dev/amem/lexindex"
)

// Hybrid search can fuse three more rankings, each derived from a first
// fusion of the vector and full-text rankings, each with its own weight
// (Options.ReplyWeight, FeedbackWeight, DenseFeedbackWeight; off by
// default).
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

// extraWeights are the weights of the extra rankings; a weight not
// above 0 is off.
type extraWeights struct{ reply, feedback, dense float64 }

func (w extraWeights) any() bool { return w.reply > 0 || w.feedback > 0 || w.dense > 0 }

// extraRankings returns the extra rankings that w turns on, from first,
// the first fusion read to depth from s's indexes, the weights to fuse
// them with, and their names (rankingNames). Replies are looked up for
// the first replyHits hits.
func (m *Memory) extraRankings(ctx context.Context, s *space, first []Scored, depth int, w extraWeights, allow map[string]bool) ([][]Scored, []float64, []string, error) {
	if !w.any() || len(first) == 0 {
		return nil, nil, nil, nil
	}
	ns := s.ns
	var rankings [][]Scored
	var weights []float64
	var names []string
	var hitNotes []Note
	var replies []Scored
	ids := make([]string, 0, feedbackDocs)
	for _, h := range first[:min(feedbackDocs, len(first))] {
		ids = append(ids, h.ID)
	}
	if w.dense > 0 {
		// Only the few hits whose vectors feed back are read.
		err := m.view(ctx, func(tx Tx) error {
			notes, err := tx.Notes(ns, ids)
			if err != nil {
				return err
			}
			byID := make(map[string]Note, len(notes))
			for _, n := range notes {
				byID[n.ID] = n
			}
			for _, id := range ids {
				if n, ok := byID[id]; ok {
					hitNotes = append(hitNotes, n)
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	if w.reply > 0 {
		replies = s.replies(first[:min(len(first), replyHits)], allow)
	}
	if w.reply > 0 {
		rankings, weights, names = append(rankings, replies), append(weights, w.reply), append(names, "reply")
	}
	if w.feedback > 0 {
		fb := feedback(s, ids, depth, allow)
		rankings, weights, names = append(rankings, fb), append(weights, w.feedback), append(names, "feedback")
	}
	if w.dense > 0 {
		fb, err := m.denseFeedback(ctx, s, hitNotes, depth, allow)
		if err != nil {
			return nil, nil, nil, err
		}
		rankings, weights, names = append(rankings, fb), append(weights, w.dense), append(names, "dense")
	}
	return rankings, weights, names, nil
}

// replies is the reply ranking: for each hit of first in order, the
// note written after it (lexindex.Index.Next: by ID, as IDs grow with
// the time of writing) if it is a reply to it (see replyWindow), passes
// allow and is not already placed. The full-text index keeps the order
// and the event times: reading them from the store cost about 27 µs a
// hit, 0.5 ms a hybrid search at 100k notes.
func (s *space) replies(first []Scored, allow map[string]bool) []Scored {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Scored
	placed := make(map[string]bool, len(first))
	for _, h := range first {
		next, at, nextAt, ok := s.lex.Next(h.ID)
		if !ok || placed[next] || (allow != nil && !allow[next]) || !isReply(at, nextAt) {
			continue // deleted since it was ranked, the last note, or no reply
		}
		placed[next] = true
		out = append(out, Scored{ID: next, Score: h.Score})
	}
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

// eventNanos is an event time as the full-text index keeps it
// (lexindex.Fields.Time): nanoseconds since 1970, 0 for none, and past
// what nanoseconds hold (before 1678, after 2262) the nearest they do.
func eventNanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Year() < 1678:
		return math.MinInt64
	case t.Year() > 2261:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// feedback is the full-text ranking, to depth, of the keywords of the
// first hits ids, read from the full-text index (lexindex.InKeywords):
// reading the three rows from the store cost about 0.45 ms of CPU a
// search at 100k notes (BenchmarkSearchModes).
func feedback(s *space, ids []string, depth int, allow map[string]bool) []Scored {
	var filter func(string) bool
	if allow != nil {
		filter = func(id string) bool { return allow[id] }
	}
	hits := s.searchLike(ids, lexindex.InKeywords, depth, filter)
	out := make([]Scored, len(hits))
	for i, h := range hits {
		out[i] = Scored{ID: h.ID, Score: h.Score}
	}
	return out
}

// denseFeedback is the vector ranking, to depth, of the normalised mean
// of the hits' embeddings.
func (m *Memory) denseFeedback(ctx context.Context, s *space, hits []Note, depth int, allow map[string]bool) ([]Scored, error) {
	var mean []float64
	for _, n := range hits {
		if len(n.Embedding) == 0 || mean != nil && len(n.Embedding) != len(mean) {
			continue
		}
		if mean == nil {
			mean = make([]float64, len(n.Embedding))
		}
		var norm float64
		for _, x := range n.Embedding {
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		for i, x := range n.Embedding {
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
	hitsV, err := s.search(q, depth, allow, "", m.rerank(ctx, s.ns))
	if err != nil {
		return nil, err
	}
	out := make([]Scored, len(hitsV))
	for i, h := range hitsV {
		out[i] = Scored{ID: h.ID, Score: float64(h.Score)}
	}
	return out, nil
}

// spreadOverDays orders the fused hits, best first, by their scores
// damped for each better pick from the same day (UTC date of the event
// time): a greedy order, so its first n do not depend on how many are
// wanted.
func (m *Memory) spreadOverDays(ctx context.Context, ns string, fused []Scored, spread float64) ([]Scored, error) {
	ids := make([]string, len(fused))
	for i, h := range fused {
		ids[i] = h.ID
	}
	day := make(map[string]string, len(fused))
	err := m.view(ctx, func(tx Tx) error {
		notes, err := tx.NotesWithoutEmbeddings(ns, ids)
		for _, n := range notes {
			day[n.ID] = n.EventTime.UTC().Format(time.DateOnly)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	picked := make(map[string]int) // notes picked per day
	left := slices.Clone(fused)
	out := make([]Scored, 0, len(left))
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
	return out, nil
}
