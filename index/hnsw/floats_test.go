package hnsw

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/amem-dev/amem/index"
	"github.com/amem-dev/amem/internal/mmap"
)

// writeFloats writes x's float file under dir and maps it back.
func writeFloats(t *testing.T, x *Index, pair int64, name string) (*mmap.Map, string) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := x.WriteFloatsTo(&buf, pair); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := mmap.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return m, path
}

// keeping builds a pair whose index keeps floats.
func keeping(t *testing.T, c *corpus, n int) pair {
	t.Helper()
	ann, err := New(c.dim, &Options{M: 8})
	if err != nil {
		t.Fatal(err)
	}
	ann.KeepFloats()
	return fill(t, c, n, ann)
}

// exactScores fails the test unless every hit's score is the exact
// cosine of its vector in exact with q (what stale floats would break), and
// unless the hits hold most of the exact top 10: the graph is approximate,
// and built concurrently, so its answers may differ in a place from run to
// run, but its scores must not.
func exactScores(t *testing.T, what string, exact *index.Flat, q []float32, hits []index.Hit) {
	t.Helper()
	nq := index.Normalised(q)
	for _, h := range hits {
		v, ok := exact.Vector(h.ID)
		if !ok {
			t.Fatalf("%s: %s is not in the exact index", what, h.ID)
		}
		if d := math.Abs(float64(index.Dot(nq, v) - h.Score)); d > 1e-5 {
			t.Fatalf("%s: %s scored %v, its exact cosine %v", what, h.ID, h.Score, index.Dot(nq, v))
		}
	}
	want, _ := exact.Search(q, 10, nil)
	if r := recallOf(hits, want); r < 0.8 {
		t.Fatalf("%s: recall@10 %.1f: %v, exact %v", what, r, hits, want)
	}
}

// reranked searches with a re-ranker that fails the test if asked: the
// index must answer from its own floats.
func reranked(t *testing.T, x *Index, q []float32) []index.Hit {
	t.Helper()
	hits, err := x.Search(q, 10, nil, func(ids []string) ([][]float32, error) {
		t.Fatalf("re-ranking asked the caller for %v", ids)
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestFloatsRoundTrip(t *testing.T) {
	c := newCorpus(48, 5)
	p := keeping(t, c, sized(2000))
	p.ann.Remove(idOf(3))
	p.exact.Remove(idOf(3))
	before := make([][]index.Hit, 20)
	for j := range before {
		before[j] = reranked(t, p.ann, c.query(uint64(j)))
		exactScores(t, fmt.Sprintf("query %d, re-ranked from kept floats", j), p.exact, c.query(uint64(j)), before[j])
	}
	m, _ := writeFloats(t, p.ann, 42, "v")

	// A graph read back, then its floats attached: the same answers,
	// with nothing on the heap.
	var g bytes.Buffer
	if _, err := p.ann.WriteTo(&g); err != nil {
		t.Fatal(err)
	}
	y, err := Read(&g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := y.AttachFloats(m, 42); err != nil {
		t.Fatal(err)
	}
	if y.HeapFloats() != 0 {
		t.Fatalf("%d floats on the heap after attaching", y.HeapFloats())
	}
	for j := range before {
		if got := reranked(t, y, c.query(uint64(j))); !slices.Equal(got, before[j]) {
			t.Fatalf("query %d: after the round trip %v, before %v", j, got, before[j])
		}
	}
	// Attached to the index that wrote it, the file replaces the heap.
	if err := p.ann.AttachFloats(m, 42); err != nil || p.ann.HeapFloats() != 0 {
		t.Fatalf("attach to the writer: %v, %d left on the heap", err, p.ann.HeapFloats())
	}
}

func TestFloatsAfterSave(t *testing.T) {
	c := newCorpus(48, 6)
	n := sized(1500)
	p := keeping(t, c, n)
	m, _ := writeFloats(t, p.ann, 1, "v")
	var g bytes.Buffer
	p.ann.WriteTo(&g)
	y, err := Read(&g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := y.AttachFloats(m, 1); err != nil {
		t.Fatal(err)
	}
	// Changes after the file: an update, a delete, a new vector in a
	// dead slot and one appended; each is served from the heap.
	moved := c.query(900)
	for _, x := range []*Index{y} {
		mustUpsert(t, pair{x, p.exact}, idOf(7), moved)
		x.Remove(idOf(8))
		p.exact.Remove(idOf(8))
		mustUpsert(t, pair{x, p.exact}, "reused", c.query(901))
		mustUpsert(t, pair{x, p.exact}, "appended", c.query(902))
	}
	if y.HeapFloats() != 3 {
		t.Fatalf("%d floats on the heap, want 3", y.HeapFloats())
	}
	for _, id := range []string{idOf(7), "reused", "appended"} {
		v, _ := p.exact.Vector(id) // normalised
		if got := index.Normalised(y.floatsOf(y.row[id])); index.Dot(got, v) < 0.99999 {
			t.Fatalf("%s: floats %v, want %v", id, got[:3], v[:3])
		}
	}
	for j := range 30 {
		q := c.query(uint64(j))
		if j%3 == 0 {
			q = moved
		}
		got := reranked(t, y, q)
		exactScores(t, fmt.Sprintf("query %d", j), p.exact, q, got)
		if slices.ContainsFunc(got, func(h index.Hit) bool { return h.ID == idOf(8) }) {
			t.Fatalf("query %d: deleted note returned", j)
		}
	}
	// The heap rows go once a new file holds them.
	m2, _ := writeFloats(t, y, 2, "v2")
	if err := y.AttachFloats(m2, 2); err != nil || y.HeapFloats() != 0 {
		t.Fatalf("re-save: %v, %d left on the heap", err, y.HeapFloats())
	}
	if got := y.floatsOf(y.row["appended"]); !slices.Equal(got, c.query(902)) {
		t.Fatal("appended vector lost by the re-save")
	}
}

func TestFloatsRejected(t *testing.T) {
	c := newCorpus(32, 7)
	p := keeping(t, c, sized(800))
	m, path := writeFloats(t, p.ann, 9, "v")
	data := m.Bytes()
	var g bytes.Buffer
	p.ann.WriteTo(&g)
	graph := g.Bytes()
	fresh := func() *Index {
		y, err := Read(bytes.NewReader(graph), nil)
		if err != nil {
			t.Fatal(err)
		}
		return y
	}
	nbad := 0
	mapped := func(b []byte) *mmap.Map {
		nbad++
		bad := filepath.Join(filepath.Dir(path), fmt.Sprint("bad", nbad))
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := mmap.Open(bad)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	stale := slices.Clone(data)
	// Another vector in node 5's row: well formed, but not its code.
	o := floatHeader + 5*4*c.dim
	other, _ := p.exact.Vector(idOf(6))
	for i, f := range other {
		copy(stale[o+4*i:], float32Bytes(f))
	}
	for name, tc := range map[string]struct {
		m    *mmap.Map
		pair int64
	}{
		"other pair":  {m, 10},
		"stale row":   {mapped(stale), 9},
		"truncated":   {mapped(data[:len(data)-4]), 9},
		"no rows":     {mapped(data[:floatHeader]), 9},
		"short head":  {mapped(data[:20]), 9},
		"bad header":  {mapped(append([]byte("AMEMVEC0"), data[8:]...)), 9},
		"extra bytes": {mapped(append(slices.Clone(data), 0, 0, 0, 0)), 9},
	} {
		t.Run(name, func(t *testing.T) {
			y := fresh()
			if err := y.AttachFloats(tc.m, tc.pair); !errors.Is(err, ErrStaleFloats) {
				t.Fatalf("attach: %v", err)
			}
			if y.floatsOf(0) != nil {
				t.Fatal("floats kept after a failed attach")
			}
		})
	}
	// Another index's dimension.
	z, _ := New(16, nil)
	if err := z.AttachFloats(m, 9); !errors.Is(err, ErrStaleFloats) {
		t.Fatalf("attach to a 16-d index: %v", err)
	}
}

func float32Bytes(f float32) []byte {
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(f))
}

func TestFloatsAfterCompaction(t *testing.T) {
	c := newCorpus(32, 8)
	n := sized(1200)
	p := keeping(t, c, n)
	m, _ := writeFloats(t, p.ann, 1, "v")
	if err := p.ann.AttachFloats(m, 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n/2; i++ {
		p.ann.Remove(idOf(i))
		p.exact.Remove(idOf(i))
	}
	y, err := p.ann.Compacted(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for j := range 10 {
		got := reranked(t, y, c.query(uint64(j)))
		exactScores(t, fmt.Sprintf("query %d after compaction", j), p.exact, c.query(uint64(j)), got)
	}
	m2, _ := writeFloats(t, y, 2, "v2")
	if err := y.AttachFloats(m2, 2); err != nil || y.HeapFloats() != 0 || y.pinned != nil {
		t.Fatalf("attach after compaction: %v, %d on the heap", err, y.HeapFloats())
	}
}
