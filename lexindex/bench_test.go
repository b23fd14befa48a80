package lexindex

import (
	"fmt"
	"sync"
	"testing"
)

var benchIndexes sync.Map // size -> *benchIndex

type benchIndex struct {
	ix        *Index
	questions []string // content words rare: a uniform draw from the vocabulary
	common    []string // content words by frequency
}

// benchCorpus is size synthetic notes over a 50k-word Zipf vocabulary
// headed by question words, and two sets of 256 LoCoMo-like questions.
func benchCorpus(size int) *benchIndex {
	if v, ok := benchIndexes.Load(size); ok {
		return v.(*benchIndex)
	}
	c := newCorpus(42, 50000)
	ix := New()
	for i := range size {
		ix.Upsert(fmt.Sprintf("note-%07d", i), c.fields())
	}
	bi := &benchIndex{ix: ix}
	for range 256 {
		bi.questions = append(bi.questions, c.question())
		bi.common = append(bi.common, c.commonQuestion())
	}
	benchIndexes.Store(size, bi)
	return bi
}

func BenchmarkSearch(b *testing.B) {
	for _, size := range []int{10_000, 100_000} {
		bi := benchCorpus(size)
		for _, qs := range []string{"rare", "common"} {
			questions := bi.questions
			if qs == "common" {
				questions = bi.common
			}
			const k = 10
			for _, mode := range []string{"pruned", "exhaustive", "pruned-filtered"} {
				b.Run(fmt.Sprintf("docs=%d/words=%s/%s", size, qs, mode), func(b *testing.B) {
					var allow func(string) bool
					search := bi.ix.SearchStats
					switch mode {
					case "exhaustive":
						search = bi.ix.ExhaustiveStats
					case "pruned-filtered": // half the notes pass
						allow = func(id string) bool { return id[len(id)-1]%2 == 0 }
					}
					var postings, matched, scored int
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						_, st := search(questions[i%len(questions)], k, allow)
						postings += st.Postings
						matched += st.Matched
						scored += st.Scored
						i++
					}
					b.ReportMetric(float64(postings)/float64(i), "postings/op")
					b.ReportMetric(float64(matched)/float64(i), "matched/op")
					b.ReportMetric(float64(scored)/float64(i), "scored/op")
				})
			}
		}
	}
}

func BenchmarkUpsert(b *testing.B) {
	c := newCorpus(7, 50000)
	docs := make([]Fields, 4096)
	for i := range docs {
		docs[i] = c.fields()
	}
	ix := New()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// a bounded working set, so replaces and compactions are measured too
		ix.Upsert(fmt.Sprint(i%20000), docs[i%len(docs)])
		i++
	}
}

func BenchmarkTokenize(b *testing.B) {
	var tok tokenizer
	text := "What did Melanie paint in the summer of 2022, after her trip to the lake with Caroline? Café naïve"
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.each(text, func([]byte) {})
	}
}
