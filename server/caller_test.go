package server

import (
	"context"
	"slices"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/mock"
	"github.com/amem-dev/amem/wire"
)

// TestCallerAttributesWinOverREST: a context given at POST or by PATCH
// (content and context together, as the UI's edit form sends them)
// survives the re-enrichment and evolution that follow, caller_set says
// so, and PATCH give_back hands it back to the curator, which then
// rewrites it.
func TestCallerAttributesWinOverREST(t *testing.T) {
	const curated, evolved = "Curator context.", "Evolved by the curator."
	rewriteAll := func(amem.Embedder) amem.Curator {
		return &mock.Curator{
			ConstructFunc: func(context.Context, amem.Note) (amem.Attributes, error) {
				return amem.Attributes{Keywords: []string{"curator-kw"}, Context: curated}, nil
			},
			ConnectFunc: func(_ context.Context, _ amem.Note, cands []amem.Candidate) (amem.Decision, error) {
				var d amem.Decision
				for _, c := range cands {
					ctxt := evolved
					d.Evolve = append(d.Evolve, amem.Evolution{Target: c.Note.ID, Keywords: []string{"evolved-kw"}, Context: &ctxt})
				}
				return d, nil
			},
		}
	}
	e := newEnvCurator(t, Options{}, rewriteAll)
	key, _ := e.key("t")
	const base = "/v1/namespaces/t/notes"
	want := func(what string, n wire.Note, context string, callerSet ...string) {
		t.Helper()
		if n.Context != context || !slices.Equal(n.CallerSet, append([]string{}, callerSet...)) {
			t.Errorf("%s: context %q, caller_set %q; want %q, %q", what, n.Context, n.CallerSet, context, callerSet)
		}
	}
	get := func(id string) wire.Note {
		t.Helper()
		var n wire.Note
		e.must(200, "GET", base+"/"+id, key, nil, &n)
		return n
	}
	// enriched waits for the workers to enrich id past version v.
	enriched := func(id string, v int) wire.Note {
		t.Helper()
		var n wire.Note
		eventually(t, func() bool {
			n = get(id)
			return n.Enrichment.State == "done" && n.Version > v
		})
		return n
	}

	var a, b wire.Note
	e.must(201, "POST", base+"?wait=true", key, map[string]any{"content": "Rex is my dog", "context": "My own words."}, &a)
	want("a after POST", a, "My own words.", "context")
	if !slices.Equal(a.Keywords, []string{"curator-kw"}) {
		t.Errorf("a's keywords %q: the curator writes what the caller left to it", a.Keywords)
	}
	e.must(201, "POST", base+"?wait=true", key, map[string]any{"content": "Rex likes the park"}, &b)
	want("b", b, curated)
	want("a evolved by b", get(a.ID), "My own words.", "context")

	var patched wire.Note
	e.must(200, "PATCH", base+"/"+a.ID, key, map[string]any{"content": "Rex is my old dog", "context": "Edited by me."}, &patched)
	a = enriched(a.ID, patched.Version)
	want("a re-enriched after PATCH", a, "Edited by me.", "context")
	if b := get(b.ID); b.Context != evolved {
		t.Errorf("b's context %q: the curator still evolves what is its own", b.Context)
	}

	// The UI's edit form sends the context with the content even when
	// only the content was edited: the curator's context stays its own.
	b = get(b.ID)
	e.must(200, "PATCH", base+"/"+b.ID, key, map[string]any{"content": "Rex likes the big park", "context": b.Context}, &patched)
	want("b after a form's PATCH", enriched(b.ID, patched.Version), curated)

	for _, bad := range []map[string]any{
		{"context": "x", "give_back": []string{"context"}},
		{"give_back": []string{"tags"}},
	} {
		e.must(400, "PATCH", base+"/"+a.ID, key, bad, nil)
	}

	e.must(200, "PATCH", base+"/"+a.ID, key, map[string]any{"give_back": []string{"context"}}, &patched)
	want("a given back", patched, "Edited by me.")
	want("a re-enriched after give_back", enriched(a.ID, patched.Version), curated)
}
