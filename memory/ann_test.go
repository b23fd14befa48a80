package memory_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/mock"
)

// clusterEmbedder maps a text to a fixed pseudo-random vector near one of
// a few centres chosen by the text, so that neighbourhoods have the
// structure real embeddings have and an approximate index is put to work
// (the lexical embedder gives too many ties to measure recall by).
func clusterEmbedder(dims int) *mock.Embedder {
	centres := make([][]float32, 16)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range centres {
		centres[i] = make([]float32, dims)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
	}
	return &mock.Embedder{
		Dims: dims, ModelName: fmt.Sprintf("cluster-%d", dims),
		EmbedFunc: func(_ context.Context, texts []string) ([][]float32, error) {
			out := make([][]float32, len(texts))
			for i, t := range texts {
				h := fnv.New64a()
				h.Write([]byte(t))
				seed := h.Sum64()
				r := rand.New(rand.NewPCG(seed, seed>>7))
				c := centres[r.IntN(len(centres))]
				v := make([]float32, dims)
				for j := range v {
					v[j] = c[j] + 0.8*float32(r.NormFloat64())
				}
				out[i] = v
			}
			return out, nil
		},
	}
}

// annOptions searches namespaces of from notes or more approximately.
func annOptions(from int, dir string) memory.Options {
	return memory.Options{Embedder: clusterEmbedder(32), Logger: quiet, Indexes: kernel.Options{ApproximateFrom: from, IndexDir: dir}}
}

// addNotes adds n notes "note <ns> <i>" from i = first, in batches.
func addNotes(t *testing.T, mem *memory.Memory, ns string, first, n int) []string {
	t.Helper()
	var ids []string
	for lo := first; lo < first+n; lo += 500 {
		var reqs []amem.AddRequest
		for i := lo; i < min(lo+500, first+n); i++ {
			reqs = append(reqs, amem.AddRequest{Namespace: ns, Content: fmt.Sprintf("note %s %d", ns, i)})
		}
		notes, err := mem.AddBatch(context.Background(), reqs)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range notes {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

// waitApproximate searches ns until it is searched approximately with no
// build pending (each search's catch-up swaps in a finished build).
func waitApproximate(t *testing.T, mem *memory.Memory, ns string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		vectorIDs(t, mem, ns, "wait")
		if approx, building := mem.Approximate(ns); approx && !building {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no approximate index after 2 minutes", ns)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// storeVectors reads every vector of ns from the store.
func storeVectors(t *testing.T, mem *memory.Memory, ns string) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{}
	after := ""
	for {
		page, err := mem.List(context.Background(), ns, amem.ListQuery{After: after, Limit: amem.MaxK, Embeddings: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range page {
			if len(n.Embedding) > 0 {
				out[n.ID] = n.Embedding
			}
		}
		if len(page) < amem.MaxK {
			return out
		}
		after = page[len(page)-1].ID
	}
}

// recall is the mean recall@k of Memory's vector search against the
// cosine of every vector in the store, over queries. A result counts if
// its cosine reaches the k-th best's (ties count either way). Every
// result must be a note of the store that passes allow (nil: all), with
// its exact cosine as its score: the approximate index re-ranks.
func recall(t *testing.T, mem *memory.Memory, ns string, k int, queries []string, f amem.Filter, allow func(string) bool) float64 {
	t.Helper()
	ctx := context.Background()
	vecs := storeVectors(t, mem, ns)
	var sum float64
	for _, q := range queries {
		qv, err := mem.Embedder().Embed(ctx, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		var exact []float64
		for id, v := range vecs {
			if allow == nil || allow(id) {
				exact = append(exact, cosine(qv[0], v))
			}
		}
		slices.SortFunc(exact, func(a, b float64) int { return cmp.Compare(b, a) })
		want := min(k, len(exact))
		if want == 0 {
			sum++
			continue
		}
		res, err := mem.Search(ctx, amem.SearchRequest{Namespace: ns, Query: q, K: k, Mode: amem.SearchVector, Filter: f, LinksPerHit: -1})
		if err != nil {
			t.Fatal(err)
		}
		hit := 0
		for _, r := range res {
			v, ok := vecs[r.Note.ID]
			if !ok || (allow != nil && !allow(r.Note.ID)) {
				t.Fatalf("query %q: %s is not a note of the store that passes the filter", q, r.Note.ID)
			}
			if c := cosine(qv[0], v); math.Abs(memory.DefaultRelevance.Vector.Prob(c, 0)-r.Score) > relevanceSlack {
				t.Fatalf("query %q: %s scored %v, the relevance of its cosine %v is %v", q, r.Note.ID, r.Score, c, memory.DefaultRelevance.Vector.Prob(c, 0))
			} else if c >= exact[want-1]-cosineSlack {
				hit++
			}
		}
		sum += float64(hit) / float64(want)
	}
	return sum / float64(len(queries))
}

func queries(n int) []string {
	q := make([]string, n)
	for i := range q {
		q[i] = fmt.Sprintf("query %d", i)
	}
	return q
}

// The approximate index's recall@10 against exact search is at least
// 0.95 at several sizes, as the namespace grows past the switch-over,
// after updates, and after deletes (which, past a quarter of the index,
// rebuild it compacted in the background).
func TestApproximateRecall(t *testing.T) {
	ctx := context.Background()
	mem := openOpts(t, filepath.Join(t.TempDir(), "r.db"), annOptions(300, ""))
	defer mem.Close()
	const ns = "recall"
	qs := queries(40)
	if raceOn {
		qs = qs[:15]
	}
	check := func(what string) {
		t.Helper()
		if r := recall(t, mem, ns, 10, qs, amem.Filter{}, nil); r < 0.95 {
			t.Errorf("%s: recall@10 %.3f, want at least 0.95", what, r)
		} else {
			t.Logf("%s: recall@10 %.3f", what, r)
		}
	}
	var ids []string
	for _, size := range []int{400, 1200, 2500} {
		ids = append(ids, addNotes(t, mem, ns, len(ids), size-len(ids))...)
		waitApproximate(t, mem, ns)
		check(fmt.Sprint(size, " notes"))
	}
	builds, _ := mem.ANNCounts()
	if builds != 1 {
		t.Errorf("%d builds while growing; want 1, the switch-over (growth is incremental)", builds)
	}

	r := rand.New(rand.NewPCG(1, 2))
	for _, i := range r.Perm(len(ids))[:500] {
		c := fmt.Sprintf("rewritten %d", i)
		if _, err := mem.Update(ctx, ns, ids[i], amem.UpdateRequest{Content: &c}); err != nil {
			t.Fatal(err)
		}
	}
	check("after 500 updates")

	gone := r.Perm(len(ids))[:1000]
	for _, i := range gone {
		if err := mem.Delete(ctx, ns, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	waitApproximate(t, mem, ns)
	check("after 1000 deletes")
	if b, _ := mem.ANNCounts(); b != 2 {
		t.Errorf("%d builds after deleting 40%%; want 2 (the switch-over, one compaction)", b)
	}
}

// Filtered searches through the approximate index return only matching
// notes; a selective filter (under a twentieth of the namespace) gets
// the exact answer, other filters a recall of at least 0.95.
func TestApproximateFilter(t *testing.T) {
	ctx := context.Background()
	mem := openOpts(t, filepath.Join(t.TempDir(), "f.db"), annOptions(300, ""))
	defer mem.Close()
	const ns = "filter"
	var reqs []amem.AddRequest
	for i := range 1000 {
		// tag "rare" on 1 in 50, "half" on every other
		tags := []string{"all"}
		if i%50 == 0 {
			tags = append(tags, "rare")
		}
		if i%2 == 0 {
			tags = append(tags, "half")
		}
		reqs = append(reqs, amem.AddRequest{Namespace: ns, Content: fmt.Sprintf("filtered %d", i), Tags: tags})
	}
	notes, err := mem.AddBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	tagged := map[string]map[string]bool{}
	for _, n := range notes {
		for _, tag := range n.Tags {
			if tagged[tag] == nil {
				tagged[tag] = map[string]bool{}
			}
			tagged[tag][n.ID] = true
		}
	}
	waitApproximate(t, mem, ns)
	qs := queries(20)
	if raceOn {
		qs = qs[:8]
	}
	for _, tag := range []string{"rare", "half"} {
		f := amem.Filter{Tags: []string{tag}}
		in := func(id string) bool { return tagged[tag][id] }
		r := recall(t, mem, ns, 10, qs, f, in)
		switch {
		case tag == "rare" && r != 1:
			t.Errorf("tag %s (%d notes): recall@10 %.3f; a selective filter is answered exactly", tag, len(tagged[tag]), r)
		case r < 0.95:
			t.Errorf("tag %s (%d notes): recall@10 %.3f, want at least 0.95", tag, len(tagged[tag]), r)
		}
	}
}

// While the approximate index is built, searches neither wait for it nor
// lose exactness: they are answered by the exact scan.
func TestApproximateSearchDuringBuild(t *testing.T) {
	mem := openOpts(t, filepath.Join(t.TempDir(), "b.db"), annOptions(300, ""))
	defer mem.Close()
	const ns = "during"
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	memory.SetBuildHook(t, func(string) {
		started <- struct{}{}
		<-release
	})
	addNotes(t, mem, ns, 0, 400)
	vectorIDs(t, mem, ns, "start")
	<-started
	for i, q := range queries(5) {
		if r := recall(t, mem, ns, 10, []string{q}, amem.Filter{}, nil); r != 1 {
			t.Errorf("query %d during the build: recall %.3f; the exact scan answers", i, r)
		}
		if approx, building := mem.Approximate(ns); approx || !building {
			t.Fatalf("during the build: approximate %v, building %v", approx, building)
		}
	}
	close(release)
	waitApproximate(t, mem, ns)
}

// An approximate index saved at Close is read, not rebuilt, by the next
// process, with the full-text index saved beside it (so the notes
// themselves are not read), both caught up with what another process
// changed meanwhile; a damaged file, or one the store contradicts, is
// deleted: a damaged full-text file is read afresh from the notes, the
// graph still used; a damaged or contradicted graph is rebuilt.
func TestApproximatePersisted(t *testing.T) {
	ctx := context.Background()
	path, dir := filepath.Join(t.TempDir(), "p.db"), t.TempDir()
	const ns = "kept"
	qs := queries(20)

	mem := openOpts(t, path, annOptions(300, dir))
	ids := addNotes(t, mem, ns, 0, 600)
	waitApproximate(t, mem, ns)
	mem.Close()
	if _, err := os.Stat(memory.ANNPath(dir, ns)); err != nil {
		t.Fatalf("no saved index: %v", err)
	}

	// Another process, exact, changes the namespace.
	other := openOpts(t, path, annOptions(-1, ""))
	added := addNotes(t, other, ns, 600, 50)
	for _, id := range ids[:30] {
		if err := other.Delete(ctx, ns, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids[30:50] {
		c := "changed " + id
		if _, err := other.Update(ctx, ns, id, amem.UpdateRequest{Content: &c}); err != nil {
			t.Fatal(err)
		}
	}
	other.Close()

	changed := map[string]bool{}
	for _, id := range ids[30:50] {
		changed[id] = true
	}
	reopen := func(what string, wantBuilds, wantLoads, wantLexLoads int64) {
		t.Helper()
		mem := openOpts(t, path, annOptions(300, dir))
		defer mem.Close()
		// The full-text index holds the other process's changes: every
		// updated note and nothing else has the word "changed".
		lexRes, err := mem.Search(ctx, amem.SearchRequest{Namespace: ns, Query: "changed", K: 50, Mode: amem.SearchLexical, LinksPerHit: -1})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, r := range lexRes {
			got[r.Note.ID] = true
		}
		if !maps.Equal(got, changed) {
			t.Errorf("%s: lexical search for the updated notes returned %d notes, want the %d updated", what, len(got), len(changed))
		}
		if n := mem.LexLoads(); n != wantLexLoads {
			t.Errorf("%s: %d full-text indexes read from files, want %d", what, n, wantLexLoads)
		}
		res := vectorIDs(t, mem, ns, "note kept 610")
		if approx, _ := mem.Approximate(ns); wantLoads == 1 && !approx {
			t.Fatalf("%s: the first search is not approximate; the saved index was not used", what)
		}
		waitApproximate(t, mem, ns)
		if b, l := mem.ANNCounts(); b != wantBuilds || l != wantLoads {
			t.Errorf("%s: %d builds, %d loads; want %d and %d", what, b, l, wantBuilds, wantLoads)
		}
		if len(res) == 0 || res[0] != added[10] {
			t.Errorf("%s: a note added by the other process is not its own nearest: %v", what, res[:min(3, len(res))])
		}
		for _, id := range res {
			if slices.Contains(ids[:30], id) {
				t.Errorf("%s: deleted note %s returned", what, id)
			}
		}
		if r := recall(t, mem, ns, 10, qs, amem.Filter{}, nil); r < 0.95 {
			t.Errorf("%s: recall@10 %.3f", what, r)
		}
	}
	reopen("saved", 0, 1, 1)

	damage := func(file string) {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0xff
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A byte flipped in the full-text file: the notes are read, the
	// graph is still used.
	damage(memory.LexPath(dir, ns))
	reopen("damaged full text", 0, 1, 0)

	// A byte flipped in the graph. (The previous process saved both
	// files again at Close only if the namespace changed: it did not.)
	file := memory.ANNPath(dir, ns)
	damage(file)
	reopen("damaged graph", 1, 0, 0)

	// Contradicted: another namespace's file, valid in itself and within
	// this namespace's feed, holds other notes.
	mem = openOpts(t, path, annOptions(300, dir))
	addNotes(t, mem, "small", 0, 320)
	waitApproximate(t, mem, "small")
	mem.Close()
	if err := os.Rename(memory.ANNPath(dir, "small"), file); err != nil {
		t.Fatal(err)
	}
	reopen("another namespace's graph", 1, 0, 0)

	// Both files another namespace's.
	mem = openOpts(t, path, annOptions(300, dir))
	addNotes(t, mem, "small", 320, 10)
	waitApproximate(t, mem, "small")
	mem.Close()
	for _, p := range [][2]string{{memory.ANNPath(dir, "small"), file}, {memory.LexPath(dir, "small"), memory.LexPath(dir, ns)}} {
		if err := os.Rename(p[0], p[1]); err != nil {
			t.Fatal(err)
		}
	}
	reopen("another namespace's files", 1, 0, 0)
}

// Close stops a build in progress and waits for it: nothing runs on
// against the closed store, and the next process builds afresh.
func TestApproximateCloseDuringBuild(t *testing.T) {
	path, dir := filepath.Join(t.TempDir(), "c.db"), t.TempDir()
	mem := openOpts(t, path, annOptions(300, dir))
	addNotes(t, mem, "closing", 0, 2000)
	started := make(chan struct{})
	remove := memory.SetBuildHook(t, func(string) { close(started) })
	vectorIDs(t, mem, "closing", "start a build")
	<-started
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	remove() // the hook is the closed process's; the next one builds freely
	mem = openOpts(t, path, annOptions(300, dir))
	defer mem.Close()
	waitApproximate(t, mem, "closing")
}

// A search only reads: a saved file the store contradicts is deleted,
// and the namespace's index built, by the kernel's background goroutine,
// which the search asks and does not wait for. Held by another
// namespace's build, that goroutine leaves the damaged file in place
// after the search has returned, then replaces it.
func TestSearchLeavesFilesToTheKernel(t *testing.T) {
	path, dir := filepath.Join(t.TempDir(), "f.db"), t.TempDir()
	mem := openOpts(t, path, annOptions(300, dir))
	addNotes(t, mem, "kept", 0, 400)
	waitApproximate(t, mem, "kept")
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	file := memory.ANNPath(dir, "kept")
	damaged, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	damaged[len(damaged)/2] ^= 0xff
	if err := os.WriteFile(file, damaged, 0o644); err != nil {
		t.Fatal(err)
	}

	mem = openOpts(t, path, annOptions(300, dir))
	defer mem.Close()
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // before Close, which waits for the held build
	started := make(chan string, 2)
	memory.SetBuildHook(t, func(ns string) {
		started <- ns
		if ns == "busy" {
			<-release
		}
	})
	addNotes(t, mem, "busy", 0, 400)
	vectorIDs(t, mem, "busy", "start a build")
	if ns := <-started; ns != "busy" {
		t.Fatalf("first build for %s", ns)
	}
	res := vectorIDs(t, mem, "kept", "note kept 10")
	if len(res) == 0 {
		t.Fatal("no hits")
	}
	if b, err := os.ReadFile(file); err != nil || !bytes.Equal(b, damaged) {
		t.Fatalf("after the search the damaged file is changed or gone (%v): the search wrote or deleted it", err)
	}
	if approx, building := mem.Approximate("kept"); approx || !building {
		t.Fatalf("kept after the search: approximate %v, building %v; want exact, a build asked for", approx, building)
	}
	free()
	waitApproximate(t, mem, "kept")
	if b, err := os.ReadFile(file); err == nil && bytes.Equal(b, damaged) {
		t.Fatal("the damaged file is still there after the build")
	}
}
