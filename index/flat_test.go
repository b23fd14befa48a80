package index

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"
)

func randVec(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// bruteForce is the obviously-correct search the index must agree with.
func bruteForce(vecs map[string][]float32, q []float32, k int) []string {
	type pair struct {
		id string
		s  float32
	}
	qn := Normalised(q)
	var ps []pair
	for id, v := range vecs {
		ps = append(ps, pair{id, Dot(qn, Normalised(v))})
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].s != ps[j].s {
			return ps[i].s > ps[j].s
		}
		return ps[i].id < ps[j].id
	})
	var out []string
	for i := 0; i < k && i < len(ps); i++ {
		out = append(out, ps[i].id)
	}
	return out
}

func TestFlatMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 100, parallelMin + 123} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := NewFlat(16)
			vecs := map[string][]float32{}
			for i := range n {
				id := fmt.Sprintf("id%05d", i)
				vecs[id] = randVec(r, 16)
				if err := f.Upsert(id, vecs[id]); err != nil {
					t.Fatal(err)
				}
			}
			// Remove and replace some rows: the block must stay consistent.
			for i := 0; i < n; i += 5 {
				id := fmt.Sprintf("id%05d", i)
				f.Remove(id)
				delete(vecs, id)
			}
			for i := 1; i < n; i += 7 {
				id := fmt.Sprintf("id%05d", i)
				if _, ok := vecs[id]; ok {
					vecs[id] = randVec(r, 16)
					f.Upsert(id, vecs[id])
				}
			}
			if f.Len() != len(vecs) {
				t.Fatalf("Len %d, want %d", f.Len(), len(vecs))
			}
			for range 5 {
				q := randVec(r, 16)
				hits, err := f.Search(q, 10, nil)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, h := range hits {
					got = append(got, h.ID)
				}
				if want := bruteForce(vecs, q, 10); !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			}
		})
	}
}

func TestFlatFilterAndErrors(t *testing.T) {
	f := NewFlat(3)
	f.Upsert("a", []float32{1, 0, 0})
	f.Upsert("b", []float32{0.9, 0.1, 0})
	f.Upsert("z", []float32{0, 0, 0}) // zero vector: scores 0, never NaN
	hits, err := f.Search([]float32{1, 0, 0}, 5, func(id string) bool { return id != "a" })
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != "b" || hits[1].ID != "z" || hits[1].Score != 0 {
		t.Fatalf("hits %+v", hits)
	}
	if err := f.Upsert("c", []float32{1, 2}); err == nil {
		t.Fatal("upsert of the wrong dimension succeeded")
	}
	if _, err := f.Search([]float32{1}, 1, nil); err == nil {
		t.Fatal("search with the wrong dimension succeeded")
	}
	if v, ok := f.Vector("b"); !ok || len(v) != 3 {
		t.Fatal("Vector")
	}
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 4))
			f := NewFlat(512)
			for i := range n {
				f.Upsert(fmt.Sprint(i), randVec(r, 512))
			}
			q := randVec(r, 512)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := f.Search(q, 10, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScanVsCopy puts the exact scan beside a plain copy of the same
// block on the same number of goroutines (the memory-bandwidth floor a
// scan can't beat), timed in the same run: issue 12 asks for a scan
// within 1.2x of the copy.
func BenchmarkScanVsCopy(b *testing.B) {
	const n = 100_000
	r := rand.New(rand.NewPCG(3, 4))
	f := NewFlat(512)
	f.Grow(n)
	for i := range n {
		f.Upsert(fmt.Sprint(i), randVec(r, 512))
	}
	q := randVec(r, 512)
	dst := make([]float32, len(f.data))
	parts := runtime.GOMAXPROCS(0)
	copyBlock := func() {
		var wg sync.WaitGroup
		step := (len(f.data) + parts - 1) / parts
		for lo := 0; lo < len(f.data); lo += step {
			hi := min(lo+step, len(f.data))
			wg.Add(1)
			go func() { defer wg.Done(); copy(dst[lo:hi], f.data[lo:hi]) }()
		}
		wg.Wait()
	}
	var scan, cp time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := f.Search(q, 10, nil); err != nil {
			b.Fatal(err)
		}
		scan += time.Since(t0)
		t0 = time.Now()
		copyBlock()
		cp += time.Since(t0)
	}
	b.ReportMetric(float64(scan.Microseconds())/float64(b.N), "scan-µs")
	b.ReportMetric(float64(cp.Microseconds())/float64(b.N), "copy-µs")
	b.ReportMetric(scan.Seconds()/cp.Seconds(), "scan/copy")
}
