package lexindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// stopwords are the question words LoCoMo questions are full of.
var stopwords = strings.Fields("what did the a is of to in when how was and her his do does for with on at who where which")

// corpus draws documents and questions over a Zipf-ish vocabulary whose
// head is stopwords.
type corpus struct {
	r     *rand.Rand
	vocab []string
	zipf  *rand.Zipf
}

func newCorpus(seed uint64, vocabSize int) *corpus {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	vocab := slices.Clone(stopwords)
	seen := map[string]bool{}
	for _, w := range vocab {
		seen[w] = true
	}
	for len(vocab) < vocabSize {
		n := 3 + r.IntN(7)
		var b strings.Builder
		for range n {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return &corpus{r: r, vocab: vocab, zipf: rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1))}
}

func (c *corpus) words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

func (c *corpus) fields() Fields {
	f := Fields{Content: c.words(5 + c.r.IntN(40)), Context: c.words(c.r.IntN(12))}
	for range c.r.IntN(4) {
		f.Keywords = append(f.Keywords, c.words(1+c.r.IntN(2)))
	}
	for range c.r.IntN(3) {
		f.Tags = append(f.Tags, c.words(1))
	}
	// Names are mostly words of the content, sometimes one it lacks; the
	// speaker its first word, or one it lacks.
	content := strings.Fields(f.Content)
	for range c.r.IntN(3) {
		f.Names = append(f.Names, content[c.r.IntN(len(content))])
	}
	if c.r.IntN(5) == 0 {
		f.Names = append(f.Names, c.words(1))
	}
	switch c.r.IntN(3) {
	case 0:
		f.Speaker = content[0]
	case 1:
		f.Speaker = c.words(1)
	}
	f.Traits = uint8(c.r.Uint32())
	f.Time = c.r.Int64()
	return f
}

// question is a few stopwords and a few content words, sometimes one the
// index doesn't have, sometimes a repeat.
func (c *corpus) question() string {
	var ws []string
	for range 2 + c.r.IntN(4) {
		ws = append(ws, stopwords[c.r.IntN(len(stopwords))])
	}
	for range 1 + c.r.IntN(3) {
		ws = append(ws, c.vocab[len(stopwords)+c.r.IntN(len(c.vocab)-len(stopwords))])
	}
	if c.r.IntN(4) == 0 {
		ws = append(ws, "zzzunknown")
	}
	if c.r.IntN(4) == 0 {
		ws = append(ws, ws[0])
	}
	c.r.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
	return strings.Join(ws, " ") + "?"
}

// commonQuestion is question with its content words drawn by frequency,
// as a question about the notes mostly is, instead of uniformly (rare).
func (c *corpus) commonQuestion() string {
	var ws []string
	for range 2 + c.r.IntN(4) {
		ws = append(ws, stopwords[c.r.IntN(len(stopwords))])
	}
	for range 1 + c.r.IntN(3) {
		i := c.zipf.Uint64()
		for i < uint64(len(stopwords)) {
			i = c.zipf.Uint64()
		}
		ws = append(ws, c.vocab[i])
	}
	c.r.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
	return strings.Join(ws, " ") + "?"
}

func (c *corpus) filter() func(string) bool {
	switch c.r.IntN(5) {
	case 0:
		return func(string) bool { return false }
	case 1:
		return func(id string) bool { return id[len(id)-1]%3 == 0 }
	case 2:
		return func(id string) bool { return id[len(id)-1]%2 == 1 }
	}
	return nil
}

func sameHits(t *testing.T, what string, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
			t.Fatalf("%s: hit %d = %v, want %v\ngot  %v\nwant %v", what, i, got[i], want[i], got, want)
		}
	}
}

// unquoted is context without its quotations of content: the runs of
// quoteRun or more terms that content holds in the same order, longest
// first from the left.
func unquoted(content, context []string) []string {
	var out []string
	for i := 0; i < len(context); {
		run := 0
		for j := range content {
			k := 0
			for i+k < len(context) && j+k < len(content) && context[i+k] == content[j+k] {
				k++
			}
			run = max(run, k)
		}
		if run >= quoteRun {
			i += run
			continue
		}
		out = append(out, context[i])
		i++
	}
	return out
}

// naive scores every document from its text, straight from the formula:
// the check on Exhaustive itself.
func naive(docs map[string]Fields, query string, k int, allow func(string) bool) []Hit {
	type doc struct {
		tf  map[string]int
		len int
	}
	ds := map[string]doc{}
	df := map[string]int{}
	total := 0
	for id, f := range docs {
		d := doc{tf: map[string]int{}}
		terms := append(Terms(f.Content), unquoted(Terms(f.Content), Terms(f.Context))...)
		terms = append(terms, Terms(strings.Join(f.Keywords, " ")+" "+strings.Join(f.Tags, " "))...)
		for _, t := range terms {
			d.tf[t]++
			d.len++
		}
		for t := range d.tf {
			df[t]++
		}
		total += d.len
		ds[id] = d
	}
	var q []string
	for _, t := range Terms(query) {
		if df[t] > 0 && !slices.Contains(q, t) {
			q = append(q, t)
		}
	}
	n := float64(len(docs))
	avgdl := float64(total) / n
	var hits []Hit
	for id, d := range ds {
		s, matched := 0.0, false
		for _, t := range q {
			tf := float64(d.tf[t])
			if tf == 0 {
				continue
			}
			matched = true
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			s += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(d.len)/avgdl))
		}
		if matched && (allow == nil || allow(id)) {
			hits = append(hits, Hit{id, s})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits[:min(k, len(hits))]
}

func TestPrunedEqualsExhaustive(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := newCorpus(seed, 300+int(seed)*400)
			ix := New()
			docs := map[string]Fields{}
			var ids []string
			next := 0
			pruned, matched := 0, 0
			for round := range 40 {
				for range 20 + c.r.IntN(60) {
					switch op := c.r.IntN(10); {
					case op < 6 || len(ids) == 0: // add
						next++
						id := fmt.Sprintf("n%05d", next)
						if c.r.IntN(8) == 0 { // maybe a removed ID back, maybe a replace
							id = fmt.Sprintf("n%05d", c.r.IntN(next))
						}
						f := c.fields()
						if c.r.IntN(10) == 0 && len(ids) > 0 { // a duplicate text: tied scores
							f = docs[ids[c.r.IntN(len(ids))]]
						}
						if _, ok := docs[id]; !ok {
							ids = append(ids, id)
						}
						ix.Upsert(id, f)
						docs[id] = f
					case op < 8: // replace
						id := ids[c.r.IntN(len(ids))]
						f := c.fields()
						ix.Upsert(id, f)
						docs[id] = f
					default: // remove
						i := c.r.IntN(len(ids))
						ix.Remove(ids[i])
						delete(docs, ids[i])
						ids = slices.Delete(ids, i, i+1)
					}
				}
				if round%13 == 12 {
					ix.Compact()
				}
				if round%5 == 4 {
					sameMarks(t, ix, docs, c)
				}
				if round%3 == 2 {
					sameOrder(t, ix, docs)
				}
				if ix.Len() != len(docs) {
					t.Fatalf("Len %d, want %d", ix.Len(), len(docs))
				}
				for range 25 {
					q := c.question()
					if c.r.IntN(2) == 0 {
						q = c.commonQuestion()
					}
					k, allow := []int{1, 3, 5, 10, 50}[c.r.IntN(5)], c.filter()
					got, st := ix.SearchStats(q, k, allow)
					want, _ := ix.ExhaustiveStats(q, k, allow)
					what := fmt.Sprintf("round %d, %q, k=%d", round, q, k)
					sameHits(t, what, got, want)
					pruned += st.Postings
					matched += st.Matched
					if round%8 == 0 && len(docs) > 0 {
						sameHits(t, what+" (naive)", want, naive(docs, q, k, allow))
					}
				}
			}
			t.Logf("%d docs, %d terms: pruned search read %d postings of %d matched (%.0f%%)",
				ix.Len(), len(ix.terms), pruned, matched, 100*float64(pruned)/float64(matched))
		})
	}
}

func TestTiesByID(t *testing.T) {
	ix := New()
	for _, id := range []string{"c", "a", "d", "b", "e"} {
		ix.Upsert(id, Fields{Content: "the same words", Tags: []string{"x"}})
	}
	ix.Upsert("f", Fields{Content: "other text entirely"})
	for _, k := range []int{1, 2, 3, 5, 10} {
		got := ix.Search("same", k, nil)
		sameHits(t, fmt.Sprint(k), got, ix.Exhaustive("same", k, nil))
		for i, h := range got {
			if want := string(rune('a' + i)); h.ID != want {
				t.Fatalf("k=%d: hit %d is %s, want %s", k, i, h.ID, want)
			}
		}
	}
	got := ix.Search("same", 2, func(id string) bool { return id != "a" })
	if len(got) != 2 || got[0].ID != "b" || got[1].ID != "c" {
		t.Fatalf("filtered: %v", got)
	}
}

func TestIndexBasics(t *testing.T) {
	ix := New()
	if h := ix.Search("anything", 5, nil); len(h) != 0 {
		t.Fatalf("empty index: %v", h)
	}
	ix.Upsert("1", Fields{Content: "Caroline went to the LGBTQ support group", Keywords: []string{"support group"}, Tags: []string{"identity"}})
	ix.Upsert("2", Fields{Content: "Melanie painted a sunrise", Context: "art, painting"})
	ix.Upsert("3", Fields{Content: "The weather was nice"})
	if h := ix.Search("What did Melanie paint?", 5, nil); len(h) == 0 || h[0].ID != "2" {
		t.Fatalf("paint: %v", h)
	}
	if h := ix.Search("identity", 5, nil); len(h) != 1 || h[0].ID != "1" {
		t.Fatalf("tag: %v", h)
	}
	if h := ix.Search("naïve PAINTINGS", 5, nil); len(h) != 1 || h[0].ID != "2" {
		t.Fatalf("context, stemmed: %v", h)
	}
	ix.Upsert("2", Fields{Content: "Melanie went swimming"})
	if h := ix.Search("paint", 5, nil); len(h) != 0 {
		t.Fatalf("replaced: %v", h)
	}
	ix.Remove("1")
	ix.Remove("1")
	if ix.Has("1") || ix.Len() != 2 {
		t.Fatalf("removed: has %v, len %d", ix.Has("1"), ix.Len())
	}
	ix.Compact()
	if h := ix.Search("went", 5, nil); len(h) != 1 || h[0].ID != "2" {
		t.Fatalf("after compaction: %v", h)
	}
	if h := ix.Search("", 5, nil); h != nil {
		t.Fatalf("empty query: %v", h)
	}
	if h := ix.Search("went", 0, nil); h != nil {
		t.Fatalf("k=0: %v", h)
	}
}

func TestAutoCompaction(t *testing.T) {
	ix := New()
	for i := range 1000 {
		ix.Upsert(fmt.Sprint(i), Fields{Content: fmt.Sprintf("word%d common", i%50)})
	}
	for i := range 900 {
		ix.Remove(fmt.Sprint(i))
	}
	if len(ix.ids) > 100+len(ix.ids)/4+64 {
		t.Fatalf("%d doc numbers for %d docs: tombstones not compacted", len(ix.ids), ix.Len())
	}
	sameHits(t, "common", ix.Search("common word7", 10, nil), ix.Exhaustive("common word7", 10, nil))
	if got := len(ix.Search("common", 1000, nil)); got != 100 {
		t.Fatalf("%d hits, want 100", got)
	}
}

func TestSearchConcurrentAndAllocs(t *testing.T) {
	bi := benchCorpus(2000)
	q := bi.questions[0]
	want := bi.ix.Exhaustive(q, 10, nil)
	done := make(chan bool)
	for g := range 4 {
		go func() {
			defer func() { done <- true }()
			for i := range 50 {
				q := bi.questions[(g*50+i)%len(bi.questions)]
				got, ex := bi.ix.Search(q, 10, nil), bi.ix.Exhaustive(q, 10, nil)
				if len(got) != len(ex) || (len(got) > 0 && got[0] != ex[0]) {
					t.Errorf("%q: %v, want %v", q, got, ex)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	sameHits(t, q, bi.ix.Search(q, 10, nil), want)
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(50, func() { bi.ix.Search(q, 10, nil) }); n > 1 {
		t.Errorf("Search allocates %v times, want 1 (its result)", n)
	}
}

// A context that quotes its note's content counts the quotation once,
// with the content: the note scores as it would with the context's own
// words alone, while a name or a keyword the context names (fewer than
// quoteRun terms) still counts.
func TestContextQuoteCountsOnce(t *testing.T) {
	const content = "Ben's dentist is Dr. Okafor at Brixton Dental."
	ix := New()
	ix.Upsert("quoting", Fields{Content: content, Context: "A fact about Ben: Ben's dentist is Dr. Okafor at Brixton…, noted on 5 December 2026."})
	ix.Upsert("own", Fields{Content: content, Context: "A fact about Ben: …, noted on 5 December 2026."})
	ix.Upsert("other", Fields{Content: "Tom's dentist moved to Leeds.", Context: "An event about Tom Leeds."})
	for _, q := range []string{"dentist Okafor", "fact December", "Ben", "Brixton Dental"} {
		score := map[string]float64{}
		for _, h := range ix.Exhaustive(q, 3, nil) {
			score[h.ID] = h.Score
		}
		if score["quoting"] == 0 || math.Abs(score["quoting"]-score["own"]) > 1e-12 {
			t.Errorf("%q: quoting context scores %v, own words alone %v", q, score["quoting"], score["own"])
		}
	}
	if ix.docLen[ix.num["quoting"]] != ix.docLen[ix.num["own"]] {
		t.Errorf("lengths %d and %d", ix.docLen[ix.num["quoting"]], ix.docLen[ix.num["own"]])
	}
	// Shared terms short of quoteRun are no quotation: "Tom Leeds" counts.
	if got := ix.docLen[ix.num["other"]]; got != 5+6 {
		t.Errorf("other's length %d, want 11", got)
	}
}
