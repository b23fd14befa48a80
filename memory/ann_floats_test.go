package memory_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
)

// An approximate index saved in IndexDir re-ranks by float vectors mapped
// from the float file beside its graph, not from the heap or the store;
// a float file that is missing, damaged, stale or of another graph makes
// the index be built afresh, and a graph of the format before float
// files (AMEMANN1) too. recall's check that every score is its note's
// exact cosine is what tells stale floats.
func TestApproximateFloatFile(t *testing.T) {
	path, dir := t.TempDir()+"/f.db", t.TempDir()
	const ns = "floats"
	qs := queries(20)

	mem := openOpts(t, path, annOptions(300, dir))
	ids := addNotes(t, mem, ns, 0, 600)
	waitApproximate(t, mem, ns)
	if keeps, heap := mem.Floats(ns); !keeps || heap != 0 {
		t.Fatalf("after the build: keeps floats %v, %d on the heap; want the float file mapped", keeps, heap)
	}
	if r := recall(t, mem, ns, 10, qs, amem.Filter{}, nil); r < 0.95 {
		t.Fatalf("recall@10 %.3f", r)
	}
	// Changes after the file: served from the heap, exactly.
	rewriteAndDelete(t, mem, ns, "moved ", ids[:10], ids[10:20])
	addNotes(t, mem, ns, 600, 5)
	vectorIDs(t, mem, ns, "catch up")
	if _, heap := mem.Floats(ns); heap != 15 {
		t.Fatalf("%d floats on the heap after 10 updates and 5 adds, want 15", heap)
	}
	if r := recall(t, mem, ns, 10, append(qs, "moved "+ids[3], "note floats 602"), amem.Filter{}, nil); r < 0.95 {
		t.Fatalf("recall@10 after changes %.3f", r)
	}
	mem.Close()

	reopen := func(what string, wantBuilds, wantLoads int64) {
		t.Helper()
		mem := openOpts(t, path, annOptions(300, dir))
		defer mem.Close()
		vectorIDs(t, mem, ns, "open")
		waitApproximate(t, mem, ns)
		if b, l := mem.ANNCounts(); b != wantBuilds || l != wantLoads {
			t.Errorf("%s: %d builds, %d loads; want %d and %d", what, b, l, wantBuilds, wantLoads)
		}
		if keeps, heap := mem.Floats(ns); !keeps || heap != 0 {
			t.Errorf("%s: keeps floats %v, %d on the heap", what, keeps, heap)
		}
		if r := recall(t, mem, ns, 10, qs, amem.Filter{}, nil); r < 0.95 {
			t.Errorf("%s: recall@10 %.3f", what, r)
		}
	}
	reopen("saved", 0, 1)

	vec, graph := memory.VecPath(dir, ns), memory.ANNPath(dir, ns)
	edit := func(file string, change func([]byte) []byte) {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, change(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A float in the middle of a row changed: the row no longer
	// quantises to its node's code.
	edit(vec, func(b []byte) []byte {
		o := 64 + (len(b)-64)/2/4*4
		b[o+3] ^= 0x40
		return b
	})
	reopen("a stale row", 1, 0)

	edit(vec, func(b []byte) []byte { return b[:len(b)-4] })
	reopen("a truncated float file", 1, 0)

	if err := os.Remove(vec); err != nil {
		t.Fatal(err)
	}
	reopen("no float file", 1, 0)

	// The float file of an older save beside a newer graph.
	old, err := os.ReadFile(vec)
	if err != nil {
		t.Fatal(err)
	}
	mem = openOpts(t, path, annOptions(300, dir))
	addNotes(t, mem, ns, 700, 3)
	vectorIDs(t, mem, ns, "catch up")
	mem.Close() // saves graph and floats again: the namespace changed
	if err := os.WriteFile(vec, old, 0o644); err != nil {
		t.Fatal(err)
	}
	reopen("an older float file", 1, 0)

	edit(graph, func(b []byte) []byte { copy(b, "AMEMANN1"); return b })
	reopen("a graph of the format before float files", 1, 0)
}

// Once the vectors set since the float file was written pass
// resaveEvery, the index and its float file are written again in the
// background and the heap rows go; a new process reads both.
func TestApproximateFloatResave(t *testing.T) {
	path, dir := t.TempDir()+"/r.db", t.TempDir()
	const ns = "resave"
	mem := openOpts(t, path, annOptions(300, dir))
	memory.SetResaveMin(t, 40)
	ids := addNotes(t, mem, ns, 0, 400)
	waitApproximate(t, mem, ns)
	rewriteAndDelete(t, mem, ns, "resaved ", ids[:20], ids[20:25])
	addNotes(t, mem, ns, 400, 30)
	deadline := time.Now().Add(time.Minute)
	for {
		vectorIDs(t, mem, ns, "catch up")
		if _, heap := mem.Floats(ns); heap == 0 {
			break
		}
		if time.Now().After(deadline) {
			_, heap := mem.Floats(ns)
			t.Fatalf("%d floats still on the heap after a minute", heap)
		}
		time.Sleep(20 * time.Millisecond)
	}
	qs := append(queries(10), "resaved "+ids[4], "note resave 410")
	if r := recall(t, mem, ns, 10, qs, amem.Filter{}, nil); r < 0.95 {
		t.Fatalf("recall@10 after the re-save %.3f", r)
	}
	mem.Close()

	mem = openOpts(t, path, annOptions(300, dir))
	defer mem.Close()
	if r := recall(t, mem, ns, 10, qs, amem.Filter{}, nil); r < 0.95 {
		t.Fatalf("recall@10 reopened %.3f", r)
	}
	if b, l := mem.ANNCounts(); b != 0 || l != 1 {
		t.Fatalf("reopened: %d builds, %d loads; want the re-saved files read", b, l)
	}
}

// rewriteAndDelete gives each of rewrite the content prefix+ID, and
// deletes each of del.
func rewriteAndDelete(t *testing.T, mem *memory.Memory, ns, prefix string, rewrite, del []string) {
	t.Helper()
	ctx := context.Background()
	for _, id := range rewrite {
		c := prefix + id
		if _, err := mem.Update(ctx, ns, id, amem.UpdateRequest{Content: &c}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range del {
		if err := mem.Delete(ctx, ns, id); err != nil {
			t.Fatal(err)
		}
	}
}
