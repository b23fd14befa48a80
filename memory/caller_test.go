package memory_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/mock"
)

// rewriteAllCurator is the curator the caller must win against: it
// writes keywords, tags and context on every construction, refines the
// new note's own attributes, links every candidate and rewrites every
// candidate's keywords, tags and context. during, when set, runs inside
// Connect, after the candidates were read and before the plan is
// written, as another writer would.
func rewriteAllCurator(during func(n amem.Note, cands []amem.Candidate)) *mock.Curator {
	curated, refined, evolved := "Curator context.", "Refined by the curator.", "Evolved by the curator."
	return &mock.Curator{
		ConstructFunc: func(ctx context.Context, n amem.Note) (amem.Attributes, error) {
			return amem.Attributes{Keywords: []string{"curator-kw"}, Tags: []string{"curator-tag"}, Context: curated}, nil
		},
		ConnectFunc: func(ctx context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
			if during != nil {
				during(n, cands)
			}
			d := amem.Decision{Note: &amem.Attributes{Keywords: []string{"refined-kw"}, Context: refined}}
			for _, c := range cands {
				d.Links = append(d.Links, amem.LinkDecision{Target: c.Note.ID, Strength: 0.5})
				d.Evolve = append(d.Evolve, amem.Evolution{Target: c.Note.ID,
					Keywords: []string{"evolved-kw"}, Tags: append(slices.Clone(c.Note.Tags), "evolved-tag"), Context: &evolved})
			}
			return d, nil
		},
	}
}

// TestCallerAttributesWin follows keywords and a context the caller
// wrote through everything the curator does after: construction on add,
// re-enrichment after a content edit (the UI's edit form sends content
// and context together), evolution by a new neighbour, and an evolution
// rebased onto a note the caller edited while the curator worked. The
// curator still writes what the caller left to it, and takes a field
// back when the caller gives it back.
func TestCallerAttributesWin(t *testing.T) {
	ctx := context.Background()
	var (
		mu       sync.Mutex
		duringFn func(n amem.Note, cands []amem.Candidate)
	)
	mem := openMem(t, rewriteAllCurator(func(n amem.Note, cands []amem.Candidate) {
		mu.Lock()
		f := duringFn
		duringFn = nil
		mu.Unlock()
		if f != nil {
			f(n, cands)
		}
	}))
	get := func(id string) amem.Note {
		t.Helper()
		n, err := mem.Get(ctx, "ns", id)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	wantAttrs := func(what string, n amem.Note, keywords []string, context string, callerKeywords, callerContext bool) {
		t.Helper()
		if !slices.Equal(n.Keywords, keywords) || n.Context != context {
			t.Errorf("%s: keywords %q, context %q; want %q, %q", what, n.Keywords, n.Context, keywords, context)
		}
		if n.CallerKeywords != callerKeywords || n.CallerContext != callerContext {
			t.Errorf("%s: caller keywords %v, context %v; want %v, %v", what, n.CallerKeywords, n.CallerContext, callerKeywords, callerContext)
		}
	}

	// Add: what the caller gave stays; the curator writes the rest.
	a, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "Caroline adopted a dog named Rex",
		Keywords: []string{"Rex"}, Context: "My dog, adopted in May."})
	if err != nil {
		t.Fatal(err)
	}
	wantAttrs("a after add", a, []string{"Rex"}, "My dog, adopted in May.", true, true)
	if !slices.Contains(a.Tags, "curator-tag") {
		t.Errorf("a's tags %q: the curator may still tag a note whose tags the caller left to it", a.Tags)
	}
	b, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "Caroline walks Rex every morning",
		Context: "Our morning routine."})
	if err != nil {
		t.Fatal(err)
	}
	wantAttrs("b after add", b, []string{"curator-kw", "refined-kw"}, "Our morning routine.", false, true)
	wantAttrs("a evolved by b", get(a.ID), []string{"Rex"}, "My dog, adopted in May.", true, true)

	// Re-enrichment: a content edit with the context, as the UI sends it.
	content, edited := "Caroline adopted a dog named Rex from the shelter", "Rex came from the shelter."
	a, err = mem.Update(ctx, "ns", a.ID, amem.UpdateRequest{Content: &content, Context: &edited})
	if err != nil {
		t.Fatal(err)
	}
	if a.Enrichment.State != amem.EnrichDone {
		t.Fatalf("a after the edit is %s, want re-enriched", a.Enrichment.State)
	}
	wantAttrs("a re-enriched", a, []string{"Rex"}, edited, true, true)
	wantAttrs("b evolved by a's re-enrichment", get(b.ID), []string{"evolved-kw"}, "Our morning routine.", false, true)

	// Evolution by a new neighbour that the caller gave nothing.
	c := mustAdd(t, mem, "ns", "Caroline bought Rex a new collar")
	wantAttrs("c", c, []string{"curator-kw", "refined-kw"}, "Refined by the curator.", false, false)
	aNow := get(a.ID)
	wantAttrs("a evolved by c", aNow, []string{"Rex"}, edited, true, true)
	if !slices.Contains(aNow.Tags, "evolved-tag") {
		t.Errorf("a's tags %q: evolution may still add tags", aNow.Tags)
	}

	// A form that sends every field sends the curator's context back
	// unchanged with new content: that takes nothing over, and the
	// curator writes the context for the new content.
	cContent := "Caroline bought Rex a new red collar"
	c, err = mem.Update(ctx, "ns", c.ID, amem.UpdateRequest{Content: &cContent, Context: &c.Context})
	if err != nil {
		t.Fatal(err)
	}
	wantAttrs("c after an edit resending its context", c, []string{"curator-kw", "refined-kw"}, "Refined by the curator.", false, false)

	// Rebase: while the curator works on d, the caller writes c's context
	// and keywords; the evolution of c, computed from the state shown,
	// is merged onto the caller's and must leave them alone.
	mine, myKeywords := "The collar is red.", []string{"collar"}
	mu.Lock()
	duringFn = func(n amem.Note, cands []amem.Candidate) {
		if !slices.ContainsFunc(cands, func(cd amem.Candidate) bool { return cd.Note.ID == c.ID }) {
			t.Errorf("c is not among d's candidates")
		}
		if _, err := mem.Update(ctx, "ns", c.ID, amem.UpdateRequest{Context: &mine, Keywords: &myKeywords}); err != nil {
			t.Errorf("update c during d's enrichment: %v", err)
		}
	}
	mu.Unlock()
	mustAdd(t, mem, "ns", "Caroline lost Rex's collar in the park")
	cNow := get(c.ID)
	wantAttrs("c after the rebased evolution", cNow, myKeywords, mine, true, true)
	if !slices.Contains(cNow.Tags, "evolved-tag") {
		t.Errorf("c's tags %q: the rebased evolution's tags are lost", cNow.Tags)
	}

	// Giving the context back: the curator writes it at once; the
	// keywords stay the caller's.
	a, err = mem.Update(ctx, "ns", a.ID, amem.UpdateRequest{GiveBack: []amem.Attribute{amem.AttributeContext}})
	if err != nil {
		t.Fatal(err)
	}
	wantAttrs("a after giving its context back", a, []string{"Rex"}, "Refined by the curator.", true, false)

	// The history says who owns what, and a restore brings it back.
	hist, err := mem.History(ctx, "ns", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	gaveBack := hist[len(hist)-2] // the give-back, before its re-enrichment
	if gaveBack.Actor != amem.ActorUser || !slices.ContainsFunc(gaveBack.Changes, func(f amem.FieldChange) bool {
		return f.Field == "caller_set" && f.Old == `["keywords","context"]` && f.New == `["keywords"]`
	}) {
		t.Errorf("the give-back's version is %+v, want the user's change of caller_set", gaveBack)
	}
	a, err = mem.Restore(ctx, "ns", a.ID, gaveBack.Version-1)
	if err != nil {
		t.Fatal(err)
	}
	wantAttrs("a restored", a, []string{"Rex"}, edited, true, true)
}

// TestGiveBackChecked refuses a request that both writes an attribute
// and gives it back, or names one that can't be given back, and
// changes nothing.
func TestGiveBackChecked(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, rewriteAllCurator(nil))
	n, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "a note", Context: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	ctxt := "also mine"
	for name, req := range map[string]amem.UpdateRequest{
		"set and given back": {Context: &ctxt, GiveBack: []amem.Attribute{amem.AttributeContext}},
		"tags":               {GiveBack: []amem.Attribute{"tags"}},
		"unknown":            {GiveBack: []amem.Attribute{"Context"}},
	} {
		if _, err := mem.Update(ctx, "ns", n.ID, req); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	if got, _ := mem.Get(ctx, "ns", n.ID); got.Version != n.Version || !got.CallerContext {
		t.Errorf("refused requests changed the note: %+v", got)
	}
}

// TestImportedLineContextIsTheCallers: a plain import line is the
// caller's note, so its keywords and context are the caller's, as Add's.
func TestImportedLineContextIsTheCallers(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, rewriteAllCurator(nil))
	line := `{"namespace": "ns", "content": "Rex is my dog", "context": "From my old notes.", "keywords": ["Rex"]}` + "\n"
	if _, err := mem.Import(ctx, strings.NewReader(line), memory.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	notes, err := mem.List(ctx, "ns", amem.ListQuery{})
	if err != nil || len(notes) != 1 {
		t.Fatalf("list: %v, %d notes", err, len(notes))
	}
	n, err := mem.Enrich(ctx, "ns", notes[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if n.Context != "From my old notes." || !n.CallerContext || !slices.Equal(n.Keywords, []string{"Rex"}) || !n.CallerKeywords {
		t.Errorf("imported line after enrichment: %+v", n)
	}
}

// TestGiveBackDuringEnrichment: a give-back that lands while the curator
// works on the note (which that run leaves the caller's) is not lost: the
// run's plan is dropped and the note stays queued for the enrichment the
// give-back asked for.
func TestGiveBackDuringEnrichment(t *testing.T) {
	ctx := context.Background()
	var mem *memory.Memory
	var id string
	once := sync.Once{}
	cur := rewriteAllCurator(func(amem.Note, []amem.Candidate) {
		once.Do(func() {
			if _, err := mem.Update(ctx, "ns", id, amem.UpdateRequest{GiveBack: []amem.Attribute{amem.AttributeContext}}); err != nil {
				t.Errorf("give back during enrichment: %v", err)
			}
		})
	})
	// Async and no workers: the give-back only queues its enrichment, and
	// this test runs the one it races with.
	mem = openOpts(t, filepath.Join(t.TempDir(), "amem.db"), memory.Options{Embedder: lexical.New(nil), Curator: cur, Enrich: enrich.Options{Async: true}})
	t.Cleanup(func() { mem.Close() })
	n, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "Rex is my dog", Context: "Mine."})
	if err != nil {
		t.Fatal(err)
	}
	id = n.ID
	if _, err := mem.Enrich(ctx, "ns", id); err != nil {
		t.Fatal(err)
	}
	n, err = mem.Get(ctx, "ns", id)
	if err != nil {
		t.Fatal(err)
	}
	if n.CallerContext || n.Enrichment.State != amem.EnrichPending {
		t.Errorf("after a give-back during enrichment: the caller's %v, state %s; want the curator's, still queued", n.CallerContext, n.Enrichment.State)
	}
}
