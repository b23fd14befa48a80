package lexindex

import (
	"slices"
	"testing"
)

// sameOrder checks Next for every live document against the sorted IDs
// of docs.
func sameOrder(t *testing.T, ix *Index, docs map[string]Fields) {
	t.Helper()
	var ids []string
	for id := range docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i, id := range ids {
		next, at, nextAt, ok := ix.Next(id)
		if i == len(ids)-1 {
			if ok || at != docs[id].Time {
				t.Fatalf("Next(%s), the last: %q %v, time %d", id, next, ok, at)
			}
			continue
		}
		if !ok || next != ids[i+1] || at != docs[id].Time || nextAt != docs[ids[i+1]].Time {
			t.Fatalf("Next(%s) = %q %d %d %v; want %q %d %d", id, next, at, nextAt, ok, ids[i+1], docs[id].Time, docs[ids[i+1]].Time)
		}
	}
	if _, _, _, ok := ix.Next("nonesuch"); ok {
		t.Fatal("Next of an unknown ID")
	}
	for id, f := range docs {
		if at, ok := ix.Time(id); !ok || at != f.Time {
			t.Fatalf("Time(%s) = %d %v, want %d", id, at, ok, f.Time)
		}
	}
	if _, ok := ix.Time("nonesuch"); ok {
		t.Fatal("Time of an unknown ID")
	}
}

func TestNextAcrossRemovalsAndReplacements(t *testing.T) {
	ix := New()
	docs := map[string]Fields{}
	put := func(id string, time int64) {
		f := Fields{Content: "words of " + id, Time: time}
		ix.Upsert(id, f)
		docs[id] = f
	}
	for i, id := range []string{"b", "d", "f", "h"} {
		put(id, int64(i+1)*10)
	}
	sameOrder(t, ix, docs)
	put("a", 5) // before all: an insertion
	put("e", 45)
	put("d", 99) // replaced: keeps its place
	ix.Remove("f")
	delete(docs, "f")
	sameOrder(t, ix, docs) // e's next skips f's entry
	put("f", 7)            // back, in its old entry
	ix.Remove("h")
	delete(docs, "h")
	sameOrder(t, ix, docs)
	ix.Compact()
	sameOrder(t, ix, docs)
	if len(ix.order) != len(docs) {
		t.Fatalf("order %v after Compact, %d docs", ix.order, len(docs))
	}
	got := roundTrip(t, ix)
	sameOrder(t, got, docs)
}
