package conversation

import (
	"math"
	"slices"

	"github.com/amem-dev/amem/lexindex"
	"github.com/amem-dev/amem/search"
)

// The ranker's features of one candidate, for one query:
//
//   - fused: its fused score;
//   - per ranking r (rankingNames): rrf:r, its reciprocal rank 1/(60+rank)
//     there (0 if absent), first:r, 1 if it is that ranking's top hit,
//     and score:r, its score there (cosine, BM25, ...; 0 if absent);
//   - overlap, keywords, all-fields: the idf-weighted share of the query's
//     terms (the full-text index's terms and idf) that the note's content,
//     its keywords, or any of its indexed fields hold;
//   - names: the share of the question's capitalised words (names of
//     people and places) that the note's text names;
//   - speaker: the note's "Speaker:" is named in the question;
//   - length: ln(1 + the content's length in terms);
//   - the kind of question crossed with what the note carries: when-time
//     (asks when, a date or time expression), who-name (asks who, a name
//     other than the speaker's), where-place (asks where, "in/at/to X"),
//     howmany-number (how many/much/long/often, a number), why-because
//     (why, a reason).
//
// Ablations on LoCoMo's development split (cross-validated recall@10
// over categories 1-4, each fold's ranker retrained without the
// features; 0.789 with all of them, multi-hop 0.528; 2026-12-04): without
// the question kinds 0.780, without when-time 0.782, without names 0.788
// (multi-hop 0.522), without speaker 0.767, without the term overlaps
// 0.783 (multi-hop 0.507), without first:* 0.775 (multi-hop 0.475),
// without score:* 0.778, without length 0.775, and with the rankings'
// features alone 0.736. The rankings' features (fused, rrf:*, first:*,
// score:*) matter most; every group adds a little.

// rankInput is what a search's ranker reads: the query, the rankings
// fused (named as rankingNames), and the fusion's first candidates.
type rankInput struct {
	query    string
	names    []string
	rankings [][]search.Hit
	window   []search.Hit
}

// applyRanker orders in's window by r's score, each with its ranker
// score. Ties keep the fusion's order.
func applyRanker(src Source, r *Ranker, in rankInput) []search.Hit {
	cands := rankCandidates(src, in)
	w := r.vector()
	out := make([]search.Hit, len(cands))
	for i, c := range cands {
		s := 0.0
		for j, x := range c.Features {
			s += w[j] * x
		}
		out[i] = search.Hit{ID: c.ID, Score: s}
	}
	slices.SortStableFunc(out, func(a, b search.Hit) int { return search.CompareScores(a.Score, b.Score) })
	return out
}

// rankCandidates computes the features of in's window, in its order,
// from the indexes the rankings were read from.
func rankCandidates(src Source, in rankInput) []RankCandidate {
	var q question
	var where []lexindex.Where
	var info []lexindex.DocInfo
	var have []bool
	src.ReadText(func(ix *lexindex.Index) {
		q = readQuestion(ix, in.query)
		where = make([]lexindex.Where, len(in.window)*len(q.lookup))
		info = make([]lexindex.DocInfo, len(in.window))
		have = make([]bool, len(in.window))
		for i, c := range in.window {
			info[i], have[i] = ix.Where(c.ID, q.lookup, where[i*len(q.lookup):(i+1)*len(q.lookup)])
		}
	})

	// The features, in one block: a search ranks a hundred candidates.
	width := len(rankFeatures)
	block := make([]float64, len(in.window)*width)
	out := make([]RankCandidate, len(in.window))
	at := make(map[string]int, len(in.window)) // a candidate's place in the window
	for i, c := range in.window {
		f := block[i*width : (i+1)*width : (i+1)*width]
		f[0] = c.Score
		if have[i] {
			noteFeatures(f[1+3*len(rankingNames):], &q, where[i*len(q.lookup):(i+1)*len(q.lookup)], info[i])
		}
		out[i] = RankCandidate{ID: c.ID, Fused: c.Score, Features: f}
		at[c.ID] = i
	}
	// Each ranking's first place for each candidate.
	for r, name := range in.names {
		base := 1 + 3*slices.Index(rankingNames, name)
		for place, h := range in.rankings[r] {
			i, ok := at[h.ID]
			if !ok {
				continue
			}
			f := out[i].Features
			if f[base] != 0 {
				continue // placed already, higher
			}
			f[base] = 1 / float64(rrfK+place+1)
			if place == 0 {
				f[base+1] = 1
			}
			f[base+2] = h.Score
		}
	}
	return out
}

// noteFeatures fills f, the features after the per-ranking ones (see
// rankFeatures), for a note which holds q.lookup's terms where where
// says and whose DocInfo is info. A note deleted since it was ranked has
// none: they stay 0.
func noteFeatures(f []float64, q *question, where []lexindex.Where, info lexindex.DocInfo) {
	var content, keywords, any float64
	for j, qt := range q.terms {
		w := where[j]
		if w&lexindex.InContent != 0 {
			content += qt.IDF
		}
		if w&lexindex.InKeywords != 0 {
			keywords += qt.IDF
		}
		if w&lexindex.Held != 0 {
			any += qt.IDF
		}
	}
	if q.idf > 0 {
		f[0], f[1], f[2] = content/q.idf, keywords/q.idf, any/q.idf
	}
	// Each name's marks follow the terms' in where; a name counts if
	// every term of it is marked.
	marked := func(w []lexindex.Where, m lexindex.Where) bool {
		for _, x := range w {
			if x&m == 0 {
				return false
			}
		}
		return len(w) > 0
	}
	named, spoke := 0, false
	at := len(q.terms)
	for _, name := range q.names {
		w := where[at : at+len(name)]
		at += len(name)
		if marked(w, lexindex.InNames) {
			named++
		}
		spoke = spoke || marked(w, lexindex.InSpeaker)
	}
	if len(q.names) > 0 {
		f[3] = float64(named) / float64(len(q.names))
	}
	if spoke {
		f[4] = 1
	}
	f[5] = math.Log1p(float64(info.ContentTerms))
	traits := noteTrait(info.Traits)
	cross := func(i int, k questionKind, tr noteTrait) {
		if q.kind&k != 0 && traits&tr != 0 {
			f[i] = 1
		}
	}
	cross(6, asksWhen, hasTime)
	cross(7, asksWho, hasName)
	cross(8, asksWhere, hasPlace)
	cross(9, asksHowMany, hasNumber)
	cross(10, asksWhy, hasBecause)
}
