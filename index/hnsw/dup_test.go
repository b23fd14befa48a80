package hnsw

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/amem-dev/amem/index"
)

// dupPair is bases corpus vectors, normalised, each repeated copies times
// with N(0, noise) added to every dimension: clusters of near-duplicates
// (noise 0.01 at 512-d: cosine about 0.95 within a cluster), as a
// namespace that stores the same few things over and over makes.
func dupPair(t testing.TB, c *corpus, bases, copies int, noise float64, opts *Options) pair {
	t.Helper()
	base := c.vectors(0, bases)
	r := rand.New(rand.NewPCG(3, 3))
	n := bases * copies
	exact := index.NewFlat(c.dim)
	ids := make([]string, n)
	vs := make([][]float32, n)
	for i := range vs {
		b := index.Normalised(base[i%bases])
		v := make([]float32, c.dim)
		for j := range v {
			v[j] = b[j] + float32(r.NormFloat64()*noise)
		}
		ids[i], vs[i] = idOf(i), v
		if err := exact.Upsert(ids[i], v); err != nil {
			t.Fatal(err)
		}
	}
	ann, err := New(c.dim, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ann.UpsertBatch(ids, vs); err != nil {
		t.Fatal(err)
	}
	return pair{ann, exact}
}

// Clusters of near-duplicates bigger than the search pool: layer 0 links
// them to each other only thinly, so the paper's greedy walk down the
// upper layers leaves a search in whichever cluster it enters; keeping
// UpperEf entry points finds the right cluster.
func TestNearDuplicateClusters(t *testing.T) {
	// Clusters stay larger than the pool under the race detector too,
	// only fewer.
	bases, copies := 40, 400
	if raceOn {
		bases, copies = 12, 250
	}
	c := newCorpus(256, 7)
	// Noise scaled so that copies are at cosine 0.95 at 256-d too.
	p := dupPair(t, c, bases, copies, 0.01*math.Sqrt(2), &Options{EfSearch: 128})
	var cross, links int
	for u := range p.ann.ids {
		l := p.ann.list(uint32(u), 0)
		for _, v := range l[1 : 1+l[0]] {
			links++
			if int(v)%bases != u%bases {
				cross++
			}
		}
	}
	greedy := p.recall(t, c, 100, 10, true, nil)
	p.ann.SetUpperEf(64)
	wide := p.recall(t, c, 100, 10, true, nil)
	t.Logf("%d clusters of %d: %.1f%% of layer-0 links cross clusters; re-ranked recall@10 %.3f greedy, %.3f with UpperEf 64",
		bases, copies, 100*float64(cross)/float64(links), greedy, wide)
	if wide < 0.95 || wide <= greedy {
		t.Errorf("recall@10 with UpperEf 64 %.3f (greedy %.3f); want at least 0.95 and better than greedy", wide, greedy)
	}
}
