package memory_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/searchtune"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
	"github.com/amem-dev/amem/offline"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/webhook"
)

var quiet = slog.New(slog.DiscardHandler)

// openOpts opens a Memory on a SQLite file; the caller closes it.
func openOpts(t testing.TB, path string, o memory.Options) *memory.Memory {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(ctx, st, &o)
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

// openAt opens a Memory on a SQLite file with the lexical embedder.
func openAt(t testing.TB, path string, cur amem.Curator) *memory.Memory {
	return openOpts(t, path, memory.Options{Embedder: lexical.New(nil), Curator: cur})
}

// storeWithWebhook is a fresh SQLite store whose namespace ns has one
// webhook taking kind, so that a test counts the events a write records
// (Webhooks' Pending); nothing listens at its URL.
func storeWithWebhook(t testing.TB, ns string, kind amem.EventKind) *sqlite.Store {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "events.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.New(ns, webhook.Input{URL: "http://127.0.0.1:9/", Kinds: []amem.EventKind{kind}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateWebhook(ctx, h); err != nil {
		t.Fatal(err)
	}
	return st
}

func openMem(t testing.TB, cur amem.Curator) *memory.Memory {
	t.Helper()
	mem := openAt(t, filepath.Join(t.TempDir(), "amem.db"), cur)
	t.Cleanup(func() { mem.Close() })
	return mem
}

func mustAdd(t testing.TB, mem *memory.Memory, ns, content string) amem.Note {
	t.Helper()
	n, err := mem.Add(context.Background(), amem.AddRequest{Namespace: ns, Content: content})
	if err != nil {
		t.Fatalf("add %q: %v", content, err)
	}
	return n
}

// linkAllCurator is a scripted curator: it tags every note with its first
// word, links every candidate, and gives each candidate the new note's
// keywords plus the word "evolved<N>" where N counts its calls.
func linkAllCurator() *mock.Curator {
	var mu sync.Mutex
	calls := 0
	return &mock.Curator{
		ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
			first := strings.ToLower(strings.Fields(n.Content)[0])
			return amem.Attributes{Keywords: []string{first}, Tags: []string{"scripted"}, Context: "About " + first + "."}, nil
		},
		ConnectFunc: func(ctx context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
			if len(cands) == 0 {
				return amem.Decision{}, nil
			}
			mu.Lock()
			calls++
			word := fmt.Sprintf("evolved%d", calls)
			mu.Unlock()
			var d amem.Decision
			for _, c := range cands {
				d.Links = append(d.Links, amem.LinkDecision{Target: c.Note.ID, Reason: "scripted", Strength: c.Similarity})
				ctxt := c.Note.Context + " Related to " + n.Keywords[0] + "."
				d.Evolve = append(d.Evolve, amem.Evolution{
					Target:   c.Note.ID,
					Keywords: append(slices.Clone(c.Note.Keywords), word),
					Tags:     append(slices.Clone(c.Note.Tags), "linked"),
					Context:  &ctxt,
					Reason:   "shares a topic",
				})
			}
			return d, nil
		},
	}
}

func TestPipelineLinksEvolvesAndReembeds(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator())
	a := mustAdd(t, mem, "ns", "Caroline went to an LGBTQ support group")
	b := mustAdd(t, mem, "ns", "Caroline is researching adoption agencies")
	c := mustAdd(t, mem, "ns", "Caroline wants to become a counsellor")

	if got := c.Enrichment.State; got != amem.EnrichDone {
		t.Fatalf("state = %s, want done", got)
	}
	if !slices.Equal(c.Keywords, []string{"caroline"}) || !slices.Equal(c.Tags, []string{"scripted"}) || c.Context != "About caroline." {
		t.Fatalf("constructed attributes not stored: %+v", c)
	}
	// c linked to a and b by ID, and the links are visible from both ends.
	nbs, err := mem.Links(ctx, "ns", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, nb := range nbs {
		if nb.Link.Source != c.ID {
			continue
		}
		ids = append(ids, nb.Note.ID)
	}
	slices.Sort(ids)
	if want := []string{a.ID, b.ID}; !slices.Equal(ids, want) {
		t.Fatalf("c links to %v, want %v", ids, want)
	}
	aNow, err := mem.Get(ctx, "ns", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(aNow.Links, func(l amem.Link) bool { return l.Source == c.ID && l.Target == a.ID }) {
		t.Fatalf("a does not see c's link: %+v", aNow.Links)
	}
	// a was evolved twice (by b, then by c): keywords gained, context grew,
	// a version per change.
	if !slices.Contains(aNow.Keywords, "evolved1") || !slices.Contains(aNow.Keywords, "evolved2") || !slices.Contains(aNow.Tags, "linked") {
		t.Fatalf("a not evolved: %+v", aNow)
	}
	hist, err := mem.History(ctx, "ns", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var actors []amem.Actor
	for _, v := range hist {
		actors = append(actors, v.Actor)
	}
	if want := []amem.Actor{amem.ActorUser, amem.ActorConstruct, amem.ActorEvolve, amem.ActorEvolve}; !slices.Equal(actors, want) {
		t.Fatalf("a's history actors = %v, want %v", actors, want)
	}
	last := hist[len(hist)-1]
	if !strings.Contains(last.Reason, c.ID) || len(last.Changes) == 0 {
		t.Fatalf("evolution version lacks reason or changes: %+v", last)
	}
	if aNow.Version != len(hist) {
		t.Fatalf("version %d but %d history rows", aNow.Version, len(hist))
	}
	// evolved1 (given by b) exists only in a's refreshed embedding text: a
	// vector search for it must find a first.
	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "evolved1", K: 1, Mode: amem.SearchVector, LinkBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Note.ID != a.ID {
		t.Fatalf("search for evolved word found %+v, want a", res)
	}
}

func TestSearchReturnsDirectHitsThenLinks(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator())
	var notes []amem.Note
	for _, s := range []string{"apples grow on trees", "bananas are yellow", "cherries are red", "dates are sweet"} {
		notes = append(notes, mustAdd(t, mem, "ns", s))
	}
	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "apples trees", K: 2, Mode: amem.SearchVector})
	if err != nil {
		t.Fatal(err)
	}
	direct := 0
	for _, r := range res {
		if r.Kind == amem.Direct {
			direct++
		} else if r.Via == "" {
			t.Fatalf("linked result without via: %+v", r)
		}
	}
	// The reference code truncated to k after adding links; amem keeps all
	// k direct hits and adds up to the budget (default k) linked notes.
	if direct != 2 || len(res) != 4 {
		t.Fatalf("got %d direct of %d results, want 2 of 4: %+v", direct, len(res), res)
	}
	if res[0].Note.ID != notes[0].ID || res[0].Kind != amem.Direct {
		t.Fatalf("first result %s, want the apples note", res[0].Note.Content)
	}
	seen := map[string]bool{}
	for _, r := range res {
		if seen[r.Note.ID] {
			t.Fatalf("note %s twice in results", r.Note.ID)
		}
		seen[r.Note.ID] = true
	}
	// Default order: every direct hit first, then the linked notes.
	kinds := func(res []amem.Result) string {
		var b strings.Builder
		for _, r := range res {
			b.WriteString(string(r.Kind[0]))
		}
		return b.String()
	}
	if got := kinds(res); got != "ddll" {
		t.Fatalf("default order %s, want ddll", got)
	}
	inter, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "apples trees", K: 2, Mode: amem.SearchVector, LinkOrder: amem.LinksInterleaved, LinksPerHit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(inter); got != "dldl" || inter[1].Via != inter[0].Note.ID || inter[3].Via != inter[2].Note.ID {
		t.Fatalf("interleaved order %s (%+v), want dldl with each link after its hit", got, inter)
	}
	if _, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "x", LinkOrder: "sideways"}); !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("bad link order: %v", err)
	}
	// With links disabled only direct hits come back.
	res, err = mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "apples", K: 2, LinkBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Kind != amem.Direct {
			t.Fatalf("linked result with links disabled: %+v", r)
		}
	}
}

func TestCuratorCannotTouchNotesItWasNotShown(t *testing.T) {
	ctx := context.Background()
	var target string // a note in the namespace, never a candidate
	armed := false
	evil := &mock.Curator{
		ConnectFunc: func(ctx context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
			if !armed {
				return amem.Decision{}, nil
			}
			ctxt := "HACKED"
			d := amem.Decision{
				Links:  []amem.LinkDecision{{Target: target, Strength: 1}, {Target: "01ARZ3NDEKTSV4RRFFQ69G5FAV", Strength: 1}},
				Evolve: []amem.Evolution{{Target: target, Context: &ctxt}, {Target: n.ID, Context: &ctxt}},
			}
			for _, c := range cands {
				d.Evolve = append(d.Evolve, amem.Evolution{Target: c.Note.ID, Context: &ctxt})
			}
			return d, nil
		},
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// One candidate only, so the curator sees the newest neighbour alone.
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Curator: evil, Enrich: enrich.Options{Candidates: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	other, err := mem.Add(ctx, amem.AddRequest{Namespace: "other", Content: "a note in another namespace"})
	if err != nil {
		t.Fatal(err)
	}
	protected := mustAdd(t, mem, "ns", "quantum chromodynamics lecture notes")
	target = protected.ID
	near := mustAdd(t, mem, "ns", "my cat likes tuna")
	protected, _ = mem.Get(ctx, "ns", protected.ID)
	armed = true
	n := mustAdd(t, mem, "ns", "my cat likes salmon")

	got, err := mem.Get(ctx, "ns", protected.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Context == "HACKED" || len(got.Links) != 0 || got.Version != protected.Version {
		t.Fatalf("curator touched a note it was not shown: %+v", got)
	}
	if got, _ := mem.Get(ctx, "other", other.ID); got.Context == "HACKED" {
		t.Fatal("curator touched another namespace")
	}
	// The shown candidate may be evolved; the new note is stored, done.
	if g, _ := mem.Get(ctx, "ns", near.ID); g.Context != "HACKED" {
		t.Fatalf("the shown candidate was not evolved: %+v", g)
	}
	if n.Enrichment.State != amem.EnrichDone || n.Context == "HACKED" {
		t.Fatalf("new note: %+v", n)
	}
}

func TestCuratorFailureKeepsNoteAndRetries(t *testing.T) {
	ctx := context.Background()
	fail := true
	cur := &mock.Curator{
		ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
			if fail {
				return amem.Attributes{}, errors.New("model returned malformed JSON")
			}
			return amem.Attributes{Keywords: []string{"retried"}}, nil
		},
	}
	mem := openMem(t, cur)
	before := mustAdd(t, mem, "ns", "first note about sailing")
	n, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "second note about sailing"})
	if err != nil {
		t.Fatalf("Add must succeed when enrichment fails: %v", err)
	}
	if n.Enrichment.State != amem.EnrichFailed || !strings.Contains(n.Enrichment.Error, "malformed") || n.Enrichment.Attempts != 1 {
		t.Fatalf("enrichment = %+v, want failed with the error", n.Enrichment)
	}
	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "second sailing", K: 1})
	if err != nil || len(res) == 0 || res[0].Note.ID != n.ID {
		t.Fatalf("failed note not searchable: %v %+v", err, res)
	}
	if g, _ := mem.Get(ctx, "ns", before.ID); g.Version != before.Version {
		t.Fatal("a failed enrichment changed another note")
	}
	fail = false
	done, failed, err := mem.EnrichPending(ctx, "ns", 0)
	if err != nil || done != 2 || failed != 0 {
		t.Fatalf("retry: done %d failed %d err %v", done, failed, err)
	}
	got, _ := mem.Get(ctx, "ns", n.ID)
	if got.Enrichment.State != amem.EnrichDone || !slices.Contains(got.Keywords, "retried") || got.Enrichment.Attempts != 2 {
		t.Fatalf("after retry: %+v", got)
	}
}

func TestPersistenceAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	mem := openAt(t, path, linkAllCurator())
	a := mustAdd(t, mem, "ns", "the lighthouse keeper writes letters")
	b := mustAdd(t, mem, "ns", "the lighthouse has a red lamp")
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Get(ctx, "ns", a.ID); !errors.Is(err, amem.ErrClosed) {
		t.Fatalf("Get after Close = %v, want ErrClosed", err)
	}
	mem = openAt(t, path, linkAllCurator())
	defer mem.Close()
	got, err := mem.Get(ctx, "ns", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != b.Content || len(got.Links) != 1 || got.Links[0].Target != a.ID {
		t.Fatalf("after reopen: %+v", got)
	}
	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "lighthouse keeper letters", K: 1, Mode: amem.SearchVector})
	if err != nil || len(res) == 0 || res[0].Note.ID != a.ID {
		t.Fatalf("index not loaded after reopen: %v %+v", err, res)
	}
}

func TestDeleteRemovesLinksBothWays(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator())
	a := mustAdd(t, mem, "ns", "piano lessons on Tuesday")
	b := mustAdd(t, mem, "ns", "piano recital on Friday")
	c := mustAdd(t, mem, "ns", "piano tuner visit")
	if err := mem.Delete(ctx, "ns", b.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a.ID, c.ID} {
		n, err := mem.Get(ctx, "ns", id)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range n.Links {
			if l.Source == b.ID || l.Target == b.ID {
				t.Fatalf("link to deleted note survives on %s: %+v", id, l)
			}
		}
	}
	if _, err := mem.Get(ctx, "ns", b.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("deleted note: %v", err)
	}
	if err := mem.Delete(ctx, "ns", b.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("second delete = %v, want ErrNotFound", err)
	}
	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "piano recital Friday", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Note.ID == b.ID {
			t.Fatal("deleted note still searchable")
		}
	}
}

func TestUpdateAndRestore(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator())
	n := mustAdd(t, mem, "ns", "Melanie paints sunsets")
	v := n.Version
	content := "Melanie paints sunrises over the lake"
	up, err := mem.Update(ctx, "ns", n.ID, amem.UpdateRequest{Content: &content, Reason: "typo"})
	if err != nil {
		t.Fatal(err)
	}
	if up.Content != content || up.Version <= v || up.Enrichment.State != amem.EnrichDone {
		t.Fatalf("update: %+v", up)
	}
	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "sunrises lake", K: 1, Mode: amem.SearchVector})
	if err != nil || res[0].Note.ID != n.ID {
		t.Fatalf("updated note not re-embedded: %v %+v", err, res)
	}
	r, err := mem.Restore(ctx, "ns", n.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "Melanie paints sunsets" || r.Version != up.Version+1 {
		t.Fatalf("restore: %+v", r)
	}
	hist, _ := mem.History(ctx, "ns", n.ID)
	if last := hist[len(hist)-1]; last.Actor != amem.ActorRestore || !strings.Contains(last.Reason, "version 1") {
		t.Fatalf("restore version: %+v", last)
	}
	if _, err := mem.Restore(ctx, "ns", n.ID, 99); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("restore to a missing version = %v, want ErrNotFound", err)
	}
	// An update that changes nothing writes nothing.
	same := "Melanie paints sunsets"
	again, err := mem.Update(ctx, "ns", n.ID, amem.UpdateRequest{Content: &same})
	if err != nil || again.Version != r.Version {
		t.Fatalf("no-op update: %v version %d, want %d", err, again.Version, r.Version)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := openMem(t, linkAllCurator())
	for _, s := range []string{"alpha note on rivers", "beta note on rivers and lakes", "gamma note on lakes"} {
		mustAdd(t, src, "one", s)
	}
	tm := time.Date(2023, 5, 8, 13, 56, 0, 123456789, time.UTC)
	if _, err := src.Add(ctx, amem.AddRequest{Namespace: "two", Content: "with metadata", EventTime: tm, Metadata: map[string]string{"k": "v"}, Tags: []string{"mine"},
		Context: "kept as the caller's through export and import"}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if n, err := src.Export(ctx, &buf, ""); err != nil || n != 4 {
		t.Fatalf("export: %d %v", n, err)
	}
	exported := buf.String()
	if !strings.Contains(exported, `"caller_context":true`) {
		t.Fatalf("the export does not say whose the context is:\n%s", exported)
	}

	dst := openMem(t, linkAllCurator())
	st, err := dst.Import(ctx, strings.NewReader(exported), memory.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Restored != 4 || st.Added != 0 || st.Links != 3 || st.Reembedded != 0 {
		t.Fatalf("import stats %+v", st)
	}
	var again bytes.Buffer
	if _, err := dst.Export(ctx, &again, ""); err != nil {
		t.Fatal(err)
	}
	if again.String() != exported {
		t.Fatalf("export of the import differs:\n%s\nvs\n%s", again.String(), exported)
	}
	// Importing again changes nothing.
	st, err = dst.Import(ctx, strings.NewReader(exported), memory.ImportOptions{})
	if err != nil || st.Unchanged != 4 || st.Restored != 0 {
		t.Fatalf("re-import: %+v %v", st, err)
	}
	// Search gives the same results in both.
	q := amem.SearchRequest{Namespace: "one", Query: "rivers", K: 3}
	r1, err1 := src.Search(ctx, q)
	r2, err2 := dst.Search(ctx, q)
	if err1 != nil || err2 != nil || len(r1) != len(r2) {
		t.Fatalf("search after import: %v %v %d %d", err1, err2, len(r1), len(r2))
	}
	for i := range r1 {
		if r1[i].Note.ID != r2[i].Note.ID || r1[i].Kind != r2[i].Kind {
			t.Fatalf("result %d differs: %s vs %s", i, r1[i].Note.ID, r2[i].Note.ID)
		}
	}
}

func TestImportRejectsBadLinesAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	cases := map[string]string{
		"not json":      "{\"content\": \"ok\"}\nnot json\n",
		"unknown field": "{\"content\": \"ok\", \"colour\": \"red\"}\n",
		"empty content": "{\"content\": \"ok\"}\n{\"content\": \"  \"}\n",
		"bad id":        "{\"id\": \"nope\", \"namespace\": \"x\", \"content\": \"c\", \"version\": 1, \"enrichment\": {\"state\": \"done\"}}\n",
		"bad namespace": "{\"content\": \"ok\", \"namespace\": \"a/b\"}\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := mem.Import(ctx, strings.NewReader(in), memory.ImportOptions{}); !errors.Is(err, amem.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			st, _ := mem.Stats(ctx, "")
			if len(st) != 0 {
				t.Fatalf("something was stored: %+v", st)
			}
		})
	}
	st, err := mem.Import(ctx, strings.NewReader("{\"content\": \"plain line\", \"time\": \"2023-05-08T13:56:00Z\"}\n"), memory.ImportOptions{Namespace: "p"})
	if err != nil || st.Added != 1 {
		t.Fatalf("plain import: %+v %v", st, err)
	}
	notes, _ := mem.List(ctx, "p", amem.ListQuery{})
	if len(notes) != 1 || !notes[0].EventTime.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) {
		t.Fatalf("plain line stored as %+v", notes)
	}
}

func TestNamespaceIsolation(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator())
	a := mustAdd(t, mem, "alice", "my password hint is the dog's name")
	b := mustAdd(t, mem, "bob", "my password hint is the cat's name")
	if len(b.Links) != 0 {
		t.Fatalf("bob's note linked across namespaces: %+v", b.Links)
	}
	got, _ := mem.Get(ctx, "alice", a.ID)
	if got.Version != a.Version || len(got.Links) != 0 {
		t.Fatalf("alice's note evolved by bob's: %+v", got)
	}
	if _, err := mem.Get(ctx, "bob", a.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("bob can get alice's note: %v", err)
	}
	if _, err := mem.History(ctx, "bob", a.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("bob can read alice's history: %v", err)
	}
	if err := mem.Delete(ctx, "bob", a.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("bob can delete alice's note: %v", err)
	}
	for _, mode := range []amem.SearchMode{amem.SearchVector, amem.SearchLexical, amem.SearchHybrid} {
		res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "bob", Query: "password hint dog", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Note.Namespace != "bob" {
				t.Fatalf("%s search in bob returned %s's note", mode, r.Note.Namespace)
			}
		}
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	bad := []struct {
		name string
		req  amem.AddRequest
	}{
		{"empty", amem.AddRequest{Namespace: "ns", Content: ""}},
		{"blank", amem.AddRequest{Namespace: "ns", Content: " \n\t"}},
		{"too long", amem.AddRequest{Namespace: "ns", Content: strings.Repeat("a", memory.DefaultMaxContentBytes+1)}},
		{"invalid utf8", amem.AddRequest{Namespace: "ns", Content: "bad \xff byte"}},
		{"bad namespace", amem.AddRequest{Namespace: "a b", Content: "ok"}},
		{"empty keyword", amem.AddRequest{Namespace: "ns", Content: "ok", Keywords: []string{""}}},
		{"empty metadata key", amem.AddRequest{Namespace: "ns", Content: "ok", Metadata: map[string]string{"": "v"}}},
		// PostgreSQL's text can't hold NUL, so no store takes it.
		{"NUL in content", amem.AddRequest{Namespace: "ns", Content: "a\x00b"}},
		{"NUL in a tag", amem.AddRequest{Namespace: "ns", Content: "ok", Tags: []string{"t\x00"}}},
		{"NUL in metadata", amem.AddRequest{Namespace: "ns", Content: "ok", Metadata: map[string]string{"k": "\x00"}}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := mem.Add(ctx, tc.req); !errors.Is(err, amem.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
	if _, err := mem.Get(ctx, "ns", "01ARZ3NDEKTSV4RRFFQ69G5FAV"); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("unknown ID: %v", err)
	}
	if _, err := mem.Get(ctx, "ns", "../etc/passwd"); !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("malformed ID: %v", err)
	}
	if _, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "x", K: -1}); !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("bad k: %v", err)
	}
	if _, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: " "}); !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("empty query: %v", err)
	}
	st, err := mem.Stats(ctx, "")
	if err != nil || len(st) != 0 {
		t.Fatalf("bad input stored something: %+v %v", st, err)
	}
}

func TestEmbeddingDimensionMismatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "d.db")
	mem := openAt(t, path, nil)
	mustAdd(t, mem, "ns", "made with 512 dimensions")
	mem.Close()

	small := lexical.New(&lexical.Options{Dimensions: 64})
	mem2 := openOpts(t, path, memory.Options{Embedder: small})
	defer mem2.Close()
	if _, err := mem2.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "another"}); !errors.Is(err, amem.ErrDimensionMismatch) {
		t.Fatalf("add with another dimension = %v, want ErrDimensionMismatch", err)
	}
	if _, err := mem2.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "x"}); !errors.Is(err, amem.ErrDimensionMismatch) {
		t.Fatalf("search with another dimension = %v, want ErrDimensionMismatch", err)
	}
	// A fresh namespace takes the new embedder.
	if _, err := mem2.Add(ctx, amem.AddRequest{Namespace: "fresh", Content: "fine"}); err != nil {
		t.Fatal(err)
	}
	// An embedder that returns vectors of the wrong length is refused.
	liar := &mock.Embedder{Dims: 8, ModelName: "liar", EmbedFunc: func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, 7)
		}
		return out, nil
	}}
	st3, _ := sqlite.Open(ctx, filepath.Join(t.TempDir(), "l.db"), nil)
	mem3, _ := memory.Open(ctx, st3, &memory.Options{Embedder: liar})
	defer mem3.Close()
	if _, err := mem3.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "x"}); !errors.Is(err, amem.ErrDimensionMismatch) {
		t.Fatalf("short vector = %v, want ErrDimensionMismatch", err)
	}
	if s, _ := mem3.Stats(ctx, ""); len(s) != 0 {
		t.Fatal("note stored despite a bad vector")
	}
}

func TestSearchFilters(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	day := func(d int) time.Time { return time.Date(2023, 5, d, 12, 0, 0, 0, time.UTC) }
	add := func(content string, d int, tags []string, md map[string]string) amem.Note {
		n, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: content, EventTime: day(d), Tags: tags, Metadata: md})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	early := add("hiking trip in the mountains", 1, []string{"Travel"}, map[string]string{"src": "chat"})
	late := add("hiking trip to the coast", 20, []string{"travel", "family"}, map[string]string{"src": "email"})
	for _, tc := range []struct {
		name string
		f    amem.Filter
		want []string
	}{
		{"from", amem.Filter{From: day(10)}, []string{late.ID}},
		{"to exclusive", amem.Filter{To: day(20)}, []string{early.ID}},
		{"tags all", amem.Filter{Tags: []string{"travel", "family"}}, []string{late.ID}},
		{"tag case", amem.Filter{Tags: []string{"TRAVEL"}}, []string{early.ID, late.ID}},
		{"metadata", amem.Filter{Metadata: map[string]string{"src": "chat"}}, []string{early.ID}},
		{"none", amem.Filter{Metadata: map[string]string{"src": "fax"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "hiking trip", Filter: tc.f})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res {
				got = append(got, r.Note.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	for _, w := range []float64{-1, math.Inf(1), math.NaN()} {
		if _, err := mem.Search(searchtune.With(ctx, searchtune.Tuning{LexicalWeight: w}), amem.SearchRequest{Namespace: "ns", Query: "hiking"}); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("lexical weight %v: %v, want ErrInvalid", w, err)
		}
	}
}

func TestConcurrentAddsAndSearches(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator())
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 8 {
				ns := fmt.Sprintf("ns%d", w%2)
				if _, err := mem.Add(ctx, amem.AddRequest{Namespace: ns, Content: fmt.Sprintf("worker %d note %d about shared topic", w, i)}); err != nil {
					errs <- err
					return
				}
				if _, err := mem.Search(ctx, amem.SearchRequest{Namespace: ns, Query: "shared topic"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st, err := mem.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range st {
		total += s.Notes
		// Every history row count matches the versions: no lost update.
		notes, _ := mem.List(ctx, s.Namespace, amem.ListQuery{Limit: 100})
		for _, n := range notes {
			h, _ := mem.History(ctx, s.Namespace, n.ID)
			if len(h) != n.Version {
				t.Fatalf("note %s at version %d has %d history rows", n.ID, n.Version, len(h))
			}
		}
	}
	if total != 32 {
		t.Fatalf("%d notes stored, want 32", total)
	}
}

// A restarted process must enrich as a continuous one would: the offline
// curator's namespace statistics are warmed from the stored notes.
func TestRestartedCuratorDecidesAsContinuous(t *testing.T) {
	ctx := context.Background()
	// The word statistics matter once words recur: "group" and "painting"
	// become common, "adoption" stays rare.
	var texts []string
	for i := range 12 {
		texts = append(texts,
			fmt.Sprintf("Caroline: the support group met on day %d and the group talked about painting.", i),
			fmt.Sprintf("Melanie: painting session %d with the group, painting a lake sunrise.", i))
	}
	texts = append(texts, "Caroline: after the support group I started painting and researching adoption agencies.")
	open := func(path string) *memory.Memory {
		emb := lexical.New(nil)
		st, err := sqlite.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := memory.Open(ctx, st, &memory.Options{Embedder: emb, Curator: offline.New(emb, nil), Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return mem
	}
	dir := t.TempDir()
	cont := open(filepath.Join(dir, "continuous.db"))
	defer cont.Close()
	var want amem.Note
	for _, s := range texts {
		want = mustAdd(t, cont, "ns", s)
	}
	path := filepath.Join(dir, "restarted.db")
	first := open(path)
	for _, s := range texts[:len(texts)-1] {
		mustAdd(t, first, "ns", s)
	}
	first.Close()
	second := open(path)
	defer second.Close()
	got := mustAdd(t, second, "ns", texts[len(texts)-1])
	if !slices.Equal(got.Keywords, want.Keywords) || !slices.Equal(got.Tags, want.Tags) || got.Context != want.Context {
		t.Fatalf("after restart: %q %q %q\ncontinuous:    %q %q %q", got.Keywords, got.Tags, got.Context, want.Keywords, want.Tags, want.Context)
	}
}

func TestReembedSwitchesModels(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	mem := openAt(t, path, nil)
	a := mustAdd(t, mem, "ns", "the lighthouse keeper writes letters")
	mustAdd(t, mem, "ns", "a recipe for sourdough bread")
	mustAdd(t, mem, "other", "left alone")
	mem.Close()

	small := lexical.New(&lexical.Options{Dimensions: 64})
	mem2 := openOpts(t, path, memory.Options{Embedder: small})
	defer mem2.Close()
	if _, err := mem2.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "lighthouse"}); !errors.Is(err, amem.ErrDimensionMismatch) {
		t.Fatalf("before re-embed: %v", err)
	}
	n, err := mem2.Reembed(ctx, "ns")
	if err != nil || n != 2 {
		t.Fatalf("Reembed = %d, %v", n, err)
	}
	res, err := mem2.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "lighthouse keeper letters", Mode: amem.SearchVector, K: 1})
	if err != nil || len(res) != 1 || res[0].Note.ID != a.ID {
		t.Fatalf("search after re-embed: %v %+v", err, res)
	}
	if got, err := mem2.Get(ctx, "ns", a.ID); err != nil || len(got.Embedding) != 64 {
		t.Fatalf("note after re-embed: %v, %d dimensions", err, len(got.Embedding))
	}
	if _, err := mem2.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "now with 64 dimensions"}); err != nil {
		t.Fatal(err)
	}
	stats, _ := mem2.Stats(ctx, "")
	for _, s := range stats {
		want := small.Name()
		if s.Namespace == "other" {
			want = lexical.New(nil).Name() // untouched
		}
		if s.Embedder != want {
			t.Fatalf("namespace %s embedder %s, want %s", s.Namespace, s.Embedder, want)
		}
	}
	if got, _ := mem2.Get(ctx, "ns", a.ID); got.Version != a.Version {
		t.Fatal("re-embedding wrote a version: only the vector changed")
	}
	if _, err := mem2.Reembed(ctx, "empty"); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("re-embed of an empty namespace: %v", err)
	}
}

// TestEventTimeRule: a zero AddRequest.EventTime means now; any time given
// must be one a note can hold, and a zero time given to Update is refused
// instead of erasing the note's time.
func TestEventTimeRule(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	before := time.Now()
	n, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "no time given"})
	if err != nil || n.EventTime.Before(before.Add(-time.Second)) {
		t.Fatalf("Add without a time: %v at %v, want now", err, n.EventTime)
	}
	edge := []time.Time{
		time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2261, 12, 31, 23, 59, 59, 999999999, time.UTC),
	}
	for _, at := range edge {
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "at the edge", EventTime: at}); err != nil {
			t.Fatalf("Add at %v: %v", at, err)
		}
	}
	bad := []time.Time{
		time.Date(1677, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for _, at := range bad {
		_, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "out of range", EventTime: at})
		if !errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), "1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z") {
			t.Errorf("Add at %v: %v, want ErrInvalid naming the range", at, err)
		}
	}
	for _, at := range append(bad, time.Time{}) {
		_, err := mem.Update(ctx, "ns", n.ID, amem.UpdateRequest{EventTime: &at})
		if !errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), "time ") {
			t.Errorf("Update to %v: %v, want ErrInvalid", at, err)
		}
	}
	got, err := mem.Get(ctx, "ns", n.ID)
	if err != nil || got.Version != n.Version || !got.EventTime.Equal(n.EventTime) {
		t.Fatalf("refused updates changed the note: %+v %v", got, err)
	}
	if err := amem.ValidEventTime(time.Time{}); err == nil || !strings.Contains(err.Error(), "zero time") {
		t.Fatalf("ValidEventTime(zero) = %v", err)
	}
	if st, _ := mem.Stats(ctx, "ns"); st[0].Notes != 3 {
		t.Fatalf("%d notes, want the 3 valid ones", st[0].Notes)
	}
}
