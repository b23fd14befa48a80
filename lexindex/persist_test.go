package lexindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
)

// churned is an index after random adds, replaces and removes, with
// tombstones left in it (no compaction at the end), and its documents.
func churned(seed uint64, ops int) (*Index, *corpus, []string) {
	c := newCorpus(seed, 500)
	ix := New()
	var ids []string
	for i := range ops {
		switch op := c.r.IntN(10); {
		case op < 7 || len(ids) == 0:
			id := fmt.Sprintf("n%05d", i)
			ix.Upsert(id, c.fields())
			ids = append(ids, id)
		case op < 9:
			ix.Upsert(ids[c.r.IntN(len(ids))], c.fields())
		default:
			j := c.r.IntN(len(ids))
			ix.Remove(ids[j])
			ids = slices.Delete(ids, j, j+1)
		}
	}
	return ix, c, ids
}

func roundTrip(t *testing.T, ix *Index) *Index {
	t.Helper()
	var buf bytes.Buffer
	n, err := ix.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d bytes, %v (buffer %d)", n, err, buf.Len())
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// sameState compares everything a search or a later change reads.
func sameState(t *testing.T, got, want *Index) {
	t.Helper()
	if got.live != want.live || got.totalLen != want.totalLen || got.dead != want.dead || got.entries != want.entries {
		t.Fatalf("counts: live %d/%d, length %d/%d, dead %d/%d, entries %d/%d",
			got.live, want.live, got.totalLen, want.totalLen, got.dead, want.dead, got.entries, want.entries)
	}
	if !slices.Equal(got.terms, want.terms) || !slices.Equal(got.alive, want.alive) || !slices.Equal(got.docLen, want.docLen) {
		t.Fatal("terms, tombstones or lengths differ")
	}
	for d := range want.ids {
		if want.alive[d] && (got.info[d] != want.info[d] || got.times[d] != want.times[d]) {
			t.Fatalf("doc %d info %d time %d, want %d %d", d, got.info[d], got.times[d], want.info[d], want.times[d])
		}
	}
	// The same live documents in the same order; a removed document's
	// entry is not saved, so only the live ones compare.
	liveOrder := func(ix *Index) []uint32 {
		var live []uint32
		for _, d := range ix.order {
			if ix.alive[d] {
				live = append(live, d)
			}
		}
		return live
	}
	if g, w := liveOrder(got), liveOrder(want); !slices.Equal(g, w) || len(w) != want.live {
		t.Fatalf("order %v, want %v (%d live)", g, w, want.live)
	}
	for d := range want.ids {
		if want.alive[d] && (got.ids[d] != want.ids[d] || got.num[want.ids[d]] != uint32(d)) {
			t.Fatalf("doc %d: %q, want %q", d, got.ids[d], want.ids[d])
		}
		if !slices.Equal(got.docTerms[d], want.docTerms[d]) {
			t.Fatalf("doc %d terms %v, want %v", d, got.docTerms[d], want.docTerms[d])
		}
	}
	if len(got.num) != len(want.num) || len(got.termID) != len(want.termID) {
		t.Fatal("maps differ in size")
	}
	for i, p := range want.post {
		q := got.post[i]
		if !slices.Equal(q.docs, p.docs) || !slices.Equal(q.tfs, p.tfs) || q.df != p.df || !slices.Equal(q.sky, p.sky) {
			t.Fatalf("term %q postings differ", want.terms[i])
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			ix, c, ids := churned(seed, 400+int(seed)*300)
			if ix.dead == 0 {
				t.Fatal("the churn left no tombstones: the format's dead documents go untested")
			}
			got := roundTrip(t, ix)
			sameState(t, got, ix)
			for range 50 {
				q := c.question()
				sameHits(t, q, got.Search(q, 10, nil), ix.Search(q, 10, nil))
			}
			// Both go on taking the same changes alike, compaction
			// included.
			for i := range 300 {
				switch {
				case i%3 == 0:
					id := ids[c.r.IntN(len(ids))]
					ix.Remove(id)
					got.Remove(id)
				default:
					id, f := fmt.Sprintf("m%05d", i), c.fields()
					ix.Upsert(id, f)
					got.Upsert(id, f)
				}
			}
			sameState(t, got, ix)
			for range 50 {
				q := c.commonQuestion()
				sameHits(t, q, got.Search(q, 10, nil), ix.Search(q, 10, nil))
			}
		})
	}
}

func TestReadEmptyAndDamaged(t *testing.T) {
	sameState(t, roundTrip(t, New()), New())

	ix, _, _ := churned(9, 200)
	var buf bytes.Buffer
	ix.WriteTo(&buf)
	data := buf.Bytes()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"magic", append([]byte("AMEMLEX0"), data[8:]...)},
		{"truncated header", data[:20]},
		{"truncated body", data[:len(data)/2]},
		{"flipped byte", flip(data, len(data)/2)},
		{"flipped header", flip(data, 12)},
		{"checksum", flip(data, len(data)-1)},
	} {
		if _, err := Read(bytes.NewReader(tc.data)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", tc.name, err)
		}
	}
}

func flip(b []byte, i int) []byte {
	b = slices.Clone(b)
	b[i] ^= 0x40
	return b
}

// headerLen is magic, header and its checksum.
const headerLen = len(magic) + 3*4 + 4*8 + 4

func FuzzRead(f *testing.F) {
	ix, c, _ := churned(3, 60)
	var buf bytes.Buffer
	ix.WriteTo(&buf)
	f.Add(buf.Bytes(), false)
	f.Add(buf.Bytes(), true)
	q := c.question()
	f.Fuzz(func(t *testing.T, data []byte, fixSum bool) {
		if fixSum && len(data) >= headerLen+4 {
			// Past the body's checksum, so that the structural checks are
			// what the fuzzer exercises (the header's stays: Read
			// allocates the sizes a header with a good checksum gives).
			data = slices.Clone(data)
			body := data[:len(data)-4]
			binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		}
		got, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		got.Search(q, 5, nil)
		got.Exhaustive(q, 5, nil)
		got.Upsert("x", c.fields())
		got.Remove("x")
		got.Compact()
	})
}

// A term repeated past what a uint16 frequency holds saturates at 65535,
// in the index and through a round trip, and still ranks first.
func TestFrequencySaturates(t *testing.T) {
	ix := New()
	ix.Upsert("many", Fields{Content: strings.Repeat("echo ", 70_000)})
	ix.Upsert("one", Fields{Content: "echo once"})
	ix.Upsert("other", Fields{Content: "nothing here"})
	for _, x := range []*Index{ix, roundTrip(t, ix)} {
		p := x.post[x.termID["echo"]]
		if len(p.tfs) != 2 || p.tfs[0] != 65535 || p.tfs[1] != 1 {
			t.Fatalf("frequencies %v, want [65535 1]", p.tfs)
		}
		hits := x.Search("echo", 3, nil)
		if len(hits) != 2 || hits[0].ID != "many" {
			t.Fatalf("hits %v", hits)
		}
		sameHits(t, "echo", hits, x.Exhaustive("echo", 3, nil))
	}
}
