package hnsw

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/amem-dev/amem/index"
)

// After random deletes, updates (to other vectors of the corpus, so that
// nodes move far) and inserts that reuse the dead slots, recall holds.
func TestRecallAfterChurn(t *testing.T) {
	c := newCorpus(128, 5)
	n := sized(8000)
	p := build(t, c, n, nil)
	r := rand.New(rand.NewPCG(5, 6))
	spare := c.vectors(n, n+3000)
	next := 0
	// 30% removed, then 10% of the rest moved.
	for _, i := range r.Perm(n)[:n*3/10] {
		p.ann.Remove(idOf(i))
		p.exact.Remove(idOf(i))
	}
	if got := p.ann.Dead(); got != n*3/10 {
		t.Fatalf("Dead() = %d, want %d", got, n*3/10)
	}
	if !p.ann.NeedsCompaction() {
		t.Error("30% dead and NeedsCompaction is false")
	}
	assertRecall(t, p, c, "after deletes", 0.93, 0.98)

	for _, i := range r.Perm(n)[:n/10] {
		if !p.exact.Has(idOf(i)) {
			continue
		}
		v := spare[next]
		next++
		mustUpsert(t, p, idOf(i), v)
	}
	assertRecall(t, p, c, "after updates", 0.93, 0.98)

	// New ids take the dead slots.
	for i := range n * 2 / 10 {
		mustUpsert(t, p, idOf(n+i), spare[next])
		next++
	}
	if got := p.ann.Dead(); got != n/10 {
		t.Errorf("Dead() = %d after reusing, want %d", got, n/10)
	}
	if p.ann.Len() != p.exact.Len() {
		t.Fatalf("Len %d, exact %d", p.ann.Len(), p.exact.Len())
	}
	assertRecall(t, p, c, "after inserts", 0.93, 0.98)

	comp, err := p.ann.Compacted(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if comp.Dead() != 0 || comp.Len() != p.exact.Len() {
		t.Fatalf("compacted: %d live %d dead, want %d live", comp.Len(), comp.Dead(), p.exact.Len())
	}
	assertRecall(t, pair{comp, p.exact}, c, "compacted", 0.93, 0.98)
}

func mustUpsert(t *testing.T, p pair, id string, v []float32) {
	t.Helper()
	if err := p.ann.Upsert(id, v); err != nil {
		t.Fatal(err)
	}
	if err := p.exact.Upsert(id, v); err != nil {
		t.Fatal(err)
	}
}

func assertRecall(t *testing.T, p pair, c *corpus, what string, plain, exact float64) {
	t.Helper()
	a := p.recall(t, c, 100, 10, false, nil)
	b := p.recall(t, c, 100, 10, true, nil)
	t.Logf("%s: recall@10 %.3f, re-ranked %.3f", what, a, b)
	if a < plain || b < exact {
		t.Errorf("%s: recall@10 %.3f (want >= %.2f), re-ranked %.3f (want >= %.2f)", what, a, plain, b, exact)
	}
}

// An updated vector is found where it now is, not where it was.
func TestUpdateMoves(t *testing.T) {
	c := newCorpus(64, 9)
	p := build(t, c, sized(3000), nil)
	far := c.query(999)
	mustUpsert(t, p, idOf(17), far)
	hits, err := p.ann.Search(far, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != idOf(17) {
		t.Fatalf("search for the new vector found %v", hits)
	}
	// The old position no longer answers with it.
	old := c.vectors(17, 18)[0]
	hits, _ = p.ann.Search(old, 5, nil, p.rerank)
	want, _ := p.exact.Search(old, 5, nil)
	if !sameIDs(hits, want) {
		t.Errorf("old position: got %v, want %v", hits, want)
	}
}

func sameIDs(a, b []index.Hit) bool {
	return slices.EqualFunc(a, b, func(x, y index.Hit) bool { return x.ID == y.ID })
}

// Filtered searches return only allowed ids; a selective filter (which
// sends the graph search to its scan fallback) and SearchAmong give the
// exact answer with re-ranking.
func TestFiltered(t *testing.T) {
	c := newCorpus(128, 13)
	n := sized(10000)
	p := build(t, c, n, nil)
	for _, every := range []int{2, 10, 50, 1000} {
		t.Run(fmt.Sprintf("1in%d", every), func(t *testing.T) {
			allowed := make(map[string]bool)
			for i := 0; i < n; i += every {
				allowed[idOf(i)] = true
			}
			allow := func(id string) bool { return allowed[id] }
			rec := p.recall(t, c, 50, 10, true, allow) // asserts only allowed ids
			t.Logf("1 in %d allowed: re-ranked recall@10 %.3f", every, rec)
			if rec < 0.97 {
				t.Errorf("re-ranked recall@10 %.3f with 1 in %d allowed", rec, every)
			}
			var among []string
			for i := 0; i < n; i += every {
				among = append(among, idOf(i))
			}
			for j := range 20 {
				q := c.query(uint64(j))
				want, _ := p.exact.Search(q, 10, allow)
				got, err := p.ann.SearchAmong(q, 10, append(among, "unknown", among[0]), p.rerank)
				if err != nil {
					t.Fatal(err)
				}
				if !sameIDs(got, want) {
					t.Fatalf("SearchAmong %v, exact %v", got, want)
				}
				if every >= 50 {
					got, _ = p.ann.Search(q, 10, allow, p.rerank)
					if !sameIDs(got, want) {
						t.Fatalf("selective Search %v, exact %v", got, want)
					}
				}
			}
		})
	}
	// A filter nothing passes: no hits, no error.
	hits, err := p.ann.Search(c.query(0), 10, func(string) bool { return false }, nil)
	if err != nil || len(hits) != 0 {
		t.Fatalf("nothing allowed: %v, %v", hits, err)
	}
}

func TestEdgeCases(t *testing.T) {
	x, err := New(4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := x.Search([]float32{1, 0, 0, 0}, 3, nil, nil); err != nil || h != nil {
		t.Fatalf("empty: %v %v", h, err)
	}
	if _, err := x.Search([]float32{1}, 3, nil, nil); !errors.Is(err, ErrDimension) {
		t.Fatalf("short query: %v", err)
	}
	if err := x.Upsert("a", []float32{1}); !errors.Is(err, ErrDimension) {
		t.Fatalf("short vector: %v", err)
	}
	if err := x.UpsertBatch([]string{"a", "b"}, [][]float32{{1, 0, 0, 0}, {1}}); !errors.Is(err, ErrDimension) || x.Len() != 0 {
		t.Fatalf("batch with a short vector: %v, len %d", err, x.Len())
	}
	_ = x.Upsert("zero", []float32{0, 0, 0, 0})
	_ = x.Upsert("a", []float32{1, 0, 0, 0})
	_ = x.Upsert("b", []float32{0, 1, 0, 0})
	_ = x.UpsertBatch([]string{"c", "c"}, [][]float32{{0, 0, 1, 0}, {0, 0, 0, 1}})
	h, _ := x.Search([]float32{0, 0, 0, 5}, 1, nil, nil)
	if len(h) != 1 || h[0].ID != "c" {
		t.Fatalf("later duplicate in a batch should win: %v", h)
	}
	x.Remove("a")
	x.Remove("a")
	x.Remove("never")
	if x.Has("a") || x.Len() != 3 {
		t.Fatalf("after remove: has a %v, len %d", x.Has("a"), x.Len())
	}
	h, _ = x.Search([]float32{1, 0, 0, 0}, 10, nil, nil)
	if len(h) != 3 || slices.ContainsFunc(h, func(h index.Hit) bool { return h.ID == "a" }) {
		t.Fatalf("removed id returned or live one missing: %v", h)
	}
	// The only other node left: removing everything leaves no hits.
	for _, id := range []string{"zero", "b", "c"} {
		x.Remove(id)
	}
	if h, _ := x.Search([]float32{1, 0, 0, 0}, 10, nil, nil); len(h) != 0 {
		t.Fatalf("all removed: %v", h)
	}
	_ = x.Upsert("d", []float32{1, 1, 0, 0})
	if h, _ := x.Search([]float32{1, 0, 0, 0}, 10, nil, nil); len(h) != 1 || h[0].ID != "d" {
		t.Fatalf("reinserted into dead slots: %v", h)
	}
}

// Searches run concurrently with each other (run with -race), sharing
// the index and nothing else.
func TestConcurrentSearch(t *testing.T) {
	c := newCorpus(64, 21)
	p := build(t, c, sized(5000), nil)
	everything := func(string) bool { return true }
	// A filter takes another path (and may end in a scan), so each kind
	// of search is compared with itself run alone.
	want := make([][2][]index.Hit, 40)
	for j := range want {
		want[j][0], _ = p.ann.Search(c.query(uint64(j)), 10, nil, p.rerank)
		want[j][1], _ = p.ann.Search(c.query(uint64(j)), 10, everything, p.rerank)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range want {
				j = (j + g) % len(want)
				var allow func(string) bool
				if g%2 == 1 {
					allow = everything
				}
				got, err := p.ann.Search(c.query(uint64(j)), 10, allow, p.rerank)
				if err != nil || !sameIDs(got, want[j][g%2]) {
					t.Errorf("query %d concurrently: %v %v, alone %v", j, got, err, want[j][g%2])
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestPersistRoundTrip(t *testing.T) {
	c := newCorpus(64, 17)
	p := build(t, c, sized(3000), &Options{M: 8})
	for i := range 100 {
		p.ann.Remove(idOf(i * 5))
	}
	var buf bytes.Buffer
	if _, err := p.ann.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	y, err := Read(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if y.Len() != p.ann.Len() || y.Dead() != p.ann.Dead() || y.opts.M != 8 {
		t.Fatalf("read: len %d dead %d M %d", y.Len(), y.Dead(), y.opts.M)
	}
	for j := range 30 {
		q := c.query(uint64(j))
		a, _ := p.ann.Search(q, 10, nil, nil)
		b, _ := y.Search(q, 10, nil, nil)
		if !slices.Equal(a, b) {
			t.Fatalf("query %d: before %v, after %v", j, a, b)
		}
	}
	// It goes on working: the dead slots are reused.
	if err := y.Upsert("new", c.query(5)); err != nil || y.Dead() != p.ann.Dead()-1 {
		t.Fatalf("upsert after read: %v, dead %d", err, y.Dead())
	}

	// Every truncation and a flipped bit in each region is an error.
	for _, cut := range []int{0, 5, 8, 20, 40, len(data) / 2, len(data) - 1} {
		if _, err := Read(bytes.NewReader(data[:cut]), nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
	r := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		bad := slices.Clone(data)
		bad[r.IntN(len(bad))] ^= 1 << r.IntN(8)
		if _, err := Read(bytes.NewReader(bad), nil); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("flipped bit: %v", err)
		}
	}
	empty, _ := New(8, nil)
	buf.Reset()
	empty.WriteTo(&buf)
	if e, err := Read(&buf, nil); err != nil || e.Len() != 0 || e.Dim() != 8 {
		t.Fatalf("empty round trip: %v", err)
	}
}

const headerLen = len(magic) + 7*4 + 2*8

// Read never panics on damaged input, whatever the checksum says: the
// structural checks stand on their own.
func FuzzRead(f *testing.F) {
	c := newCorpus(8, 1)
	x, _ := New(8, &Options{M: 2})
	for i, v := range c.vectors(0, 40) {
		x.Upsert(idOf(i), v)
	}
	x.Remove(idOf(3))
	var buf bytes.Buffer
	x.WriteTo(&buf)
	f.Add(buf.Bytes(), false)
	f.Add(buf.Bytes(), true)
	f.Fuzz(func(t *testing.T, data []byte, fixSum bool) {
		if fixSum && len(data) >= headerLen+8 {
			// Past the body's checksum, so that the structural checks are
			// what the fuzzer exercises. The header's stays: Read trusts
			// the sizes of a header whose checksum holds and allocates
			// them, which a forged header could make arbitrarily large.
			data = slices.Clone(data)
			body := data[:len(data)-4]
			binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		}
		y, err := Read(bytes.NewReader(data), nil)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		y.Search(c.query(0), 5, nil, nil)
	})
}
