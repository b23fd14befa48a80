package uselite

import (
	"cmp"
	"slices"
)

// Batching. Every forward pass streams all 18 MB of packed weights
// through the cache and runs some 250 small graph ops, whatever it
// carries: on the development machines a one-token text costs a quarter
// to a half of an 18-token sentence. Texts that go through the network
// together share that cost, and their dense products run on more rows at
// once, which the micro-kernels do at a higher rate. So Embed packs its
// texts into runs, each one forward pass:
//
//   - Within a run the graph pads every text to the longest one. Only the
//     attention and its projections compute on the padding (the
//     feed-forward layers gather the real tokens first), but padding is
//     still waste, so texts are sorted by length and a run takes a
//     shorter text only while its padded size stays within runPadRatio of
//     its real tokens, plus runPadSlack.
//   - With several goroutines a run aims at an equal share of the tokens,
//     so that two long texts still go to two cores; but never at fewer
//     than runMinTokens, under which a second pass costs more than it
//     saves.
//   - A run holds at most runMaxRows padded tokens, which bounds the
//     buffers a frame keeps between calls (the widest, 1536 floats a row,
//     is then 3 MB).
//
// A text's vector therefore depends slightly on its companions: the
// padding changes the order of some sums, by at most about 1e-6 per
// component (TestBatchEqualsSingle).
const (
	runMaxRows   = 512
	runMinTokens = 32
	runPadRatio  = 1.25
	runPadSlack  = 16
)

// schedule is the plan of one Embed call: every text's tokens and the
// runs they go in. Its buffers are kept with a frame between calls.
type schedule struct {
	ids   []int32    // the tokens of all texts, one after another
	spans [][2]int32 // text i's tokens are ids[spans[i][0]:spans[i][1]]
	empty []int      // texts without tokens: they take the empty vector
	order []int      // the other texts, longest first
	runs  []int      // run r is order[runs[r]:runs[r+1]]; len(runs)-1 runs
}

// tokenize fills ids and spans with the tokens the model reads of each
// text.
func (s *schedule) tokenize(m *Model, texts []string, scratch *tokScratch) {
	s.ids, s.spans, s.empty = s.ids[:0], s.spans[:0], s.empty[:0]
	for i, t := range texts {
		ids := m.tok.encodeForModel(t, scratch)
		if m.maxTokens > 0 && len(ids) > m.maxTokens {
			// The graph's ClipToMaxLength would drop these; not feeding
			// them gives the same result for less work.
			ids = ids[:m.maxTokens]
		}
		if len(ids) == 0 {
			s.empty = append(s.empty, i)
		}
		start := int32(len(s.ids))
		s.ids = append(s.ids, ids...)
		s.spans = append(s.spans, [2]int32{start, int32(len(s.ids))})
	}
}

func (s *schedule) length(i int) int { return int(s.spans[i][1] - s.spans[i][0]) }

func (s *schedule) tokens(i int) []int32 {
	sp := s.spans[i]
	return s.ids[sp[0]:sp[1]:sp[1]]
}

// numRuns is how many runs plan made.
func (s *schedule) numRuns() int { return max(len(s.runs)-1, 0) }

// run returns the texts of run r.
func (s *schedule) run(r int) []int { return s.order[s.runs[r]:s.runs[r+1]] }

// plan packs the texts with tokens into runs for the given number of
// goroutines (see the comment at the top of the file).
func (s *schedule) plan(workers int) {
	s.order, s.runs = s.order[:0], s.runs[:0]
	total := 0
	for i := range s.spans {
		if n := s.length(i); n > 0 {
			s.order = append(s.order, i)
			total += n
		}
	}
	if len(s.order) == 0 {
		return
	}
	// Longest first, so that each run's first text sets its padded length,
	// and the longest runs start first when the goroutines share them.
	slices.SortStableFunc(s.order, func(a, b int) int { return cmp.Compare(s.length(b), s.length(a)) })
	share := max((total+workers-1)/max(workers, 1), runMinTokens)
	s.runs = append(s.runs, 0)
	longest, real := 0, 0
	for k, i := range s.order {
		n := s.length(i)
		count := k - s.runs[len(s.runs)-1]
		if count > 0 {
			padded := (count + 1) * longest
			fits := real+n <= share && padded <= runMaxRows &&
				float64(padded) <= runPadRatio*float64(real+n)+runPadSlack
			if !fits {
				s.runs = append(s.runs, k)
				count = 0
			}
		}
		if count == 0 {
			longest, real = n, 0
		}
		real += n
	}
	s.runs = append(s.runs, len(s.order))
}
