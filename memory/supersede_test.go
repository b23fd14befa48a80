package memory_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/mock"
)

// supersessionExamples are issue 30's three facts that stopped being
// true, each with a query that finds both notes and a time between them.
var supersessionExamples = []struct {
	name, old, new, query string
}{
	{"allergy", "I'm allergic to penicillin.", "I'm not allergic to penicillin after all.", "allergic to penicillin"},
	{"dentist", "Dentist appointment at 3pm on Friday.", "The dentist appointment moved to 4pm on Friday.", "dentist appointment Friday"},
	{"home", "I live in Boston.", "I moved to Seattle in March; I live in Seattle now.", "where do I live"},
}

// examplesCurator supersedes an example's old note when its new note
// arrives: the judgement a model (or the coming offline rule) makes.
func examplesCurator() *mock.Superseder {
	return &mock.Superseder{Supersedes: func(n, old amem.Note) (string, bool) {
		for _, e := range supersessionExamples {
			if n.Content == e.new && old.Content == e.old {
				return "the new note says the old one is no longer true", true
			}
		}
		return "", false
	}}
}

var (
	exampleOld = time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	exampleNew = time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
)

// addExamples adds each example's old note, then its new one, in a
// namespace of its own, and returns their IDs: old, new by example.
func addExamples(t *testing.T, mem *memory.Memory) [][2]string {
	t.Helper()
	ctx := context.Background()
	var ids [][2]string
	for _, e := range supersessionExamples {
		var pair [2]string
		for i, c := range []struct {
			text string
			at   time.Time
		}{{e.old, exampleOld}, {e.new, exampleNew}} {
			n, err := mem.Add(ctx, amem.AddRequest{Namespace: e.name, Content: c.text, EventTime: c.at})
			if err != nil {
				t.Fatal(err)
			}
			pair[i] = n.ID
		}
		ids = append(ids, pair)
	}
	return ids
}

// checkExamples checks what issue 30 asks of every example: the old
// note superseded by the new one from the new one's time, with a
// supersedes link and a version giving the curator's reason; searches
// in every mode put the current fact first and the old one right after
// it, marked; as of a time before the change, the old one is first and
// not marked; and a search that excludes superseded notes leaves it out.
func checkExamples(t *testing.T, mem *memory.Memory, ids [][2]string) {
	t.Helper()
	ctx := context.Background()
	for i, e := range supersessionExamples {
		oldID, newID := ids[i][0], ids[i][1]
		old, err := mem.Get(ctx, e.name, oldID)
		if err != nil {
			t.Fatal(err)
		}
		if old.SupersededBy != newID || !old.ValidUntil.Equal(exampleNew) || old.CallerValidity {
			t.Fatalf("%s: old note %+v, want superseded by %s until %s", e.name, old, newID, exampleNew)
		}
		if !slices.ContainsFunc(old.Links, func(l amem.Link) bool {
			return l.Source == newID && l.Target == oldID && l.Kind == amem.LinkSupersedes
		}) {
			t.Fatalf("%s: no supersedes link %s->%s in %+v", e.name, newID, oldID, old.Links)
		}
		hist, err := mem.History(ctx, e.name, oldID)
		if err != nil {
			t.Fatal(err)
		}
		last := hist[len(hist)-1]
		if last.Actor != amem.ActorEvolve || !strings.Contains(last.Reason, "superseded by new note "+newID+": the new note says") ||
			!slices.ContainsFunc(last.Changes, func(c amem.FieldChange) bool { return c.Field == "superseded_by" }) {
			t.Fatalf("%s: last version %+v", e.name, last)
		}
		if cur, _ := mem.Get(ctx, e.name, newID); cur.SupersededBy != "" || !cur.ValidUntil.IsZero() {
			t.Fatalf("%s: the new note is marked %+v", e.name, cur)
		}
		for _, m := range searchModes {
			req := m.req
			req.Namespace, req.Query, req.K = e.name, e.query, 10
			ids, res := searchIDs(t, mem, req)
			if len(ids) < 2 || ids[0] != newID || ids[1] != oldID {
				t.Fatalf("%s, %s: %v, want %s then %s", e.name, m.name, ids, newID, oldID)
			}
			if res[1].Note.SupersededBy != newID || res[0].Note.SupersededBy != "" {
				t.Fatalf("%s, %s: results %+v", e.name, m.name, res)
			}

			req.AsOf = exampleNew.Add(-24 * time.Hour)
			ids, res = searchIDs(t, mem, req)
			if len(ids) != 1 || ids[0] != oldID || res[0].Note.SupersededBy != "" || !res[0].Note.ValidUntil.IsZero() {
				t.Fatalf("%s, %s as of the day before: %+v", e.name, m.name, res)
			}
			req.AsOf = exampleNew
			if ids, _ = searchIDs(t, mem, req); len(ids) < 2 || ids[0] != newID || ids[1] != oldID {
				t.Fatalf("%s, %s as of the change: %v", e.name, m.name, ids)
			}

			req.AsOf, req.ExcludeSuperseded = time.Time{}, true
			if ids, _ = searchIDs(t, mem, req); !slices.Equal(ids, []string{newID}) {
				t.Fatalf("%s, %s without superseded notes: %v", e.name, m.name, ids)
			}
			req.AsOf = exampleNew.Add(-time.Hour)
			if ids, _ = searchIDs(t, mem, req); !slices.Equal(ids, []string{oldID}) {
				t.Fatalf("%s, %s without superseded notes, as of before: %v", e.name, m.name, ids)
			}
		}
	}
}

func TestSupersessionExamples(t *testing.T) {
	mem := openMem(t, examplesCurator())
	checkExamples(t, mem, addExamples(t, mem))
}

// An exported memory imports with its supersessions: the old notes'
// validity, the links' kinds, and the searches that follow from them.
func TestSupersessionSurvivesExportImport(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, examplesCurator())
	ids := addExamples(t, mem)
	var buf bytes.Buffer
	for _, e := range supersessionExamples {
		if _, err := mem.Export(ctx, &buf, e.name); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(buf.String(), `"kind":"supersedes"`) || !strings.Contains(buf.String(), `"superseded_by":"`+ids[0][1]+`"`) {
		t.Fatalf("export holds no supersession:\n%s", buf.String())
	}
	other := openMem(t, nil)
	if _, err := other.Import(ctx, bytes.NewReader(buf.Bytes()), memory.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	checkExamples(t, other, ids)
}

// The caller's word wins: restoring a superseded note to current records
// a version and turns the link into a related one, and the curator's
// next enrichment of the new note does not supersede it again; a caller
// can name the superseding note itself, which links it.
func TestCallerValidityWins(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, examplesCurator())
	ids := addExamples(t, mem)
	ns, oldID, newID := supersessionExamples[0].name, ids[0][0], ids[0][1]

	n, err := mem.Update(ctx, ns, oldID, amem.UpdateRequest{Validity: &amem.Validity{}})
	if err != nil {
		t.Fatal(err)
	}
	if n.SupersededBy != "" || !n.ValidUntil.IsZero() || !n.CallerValidity {
		t.Fatalf("restored: %+v", n)
	}
	if slices.ContainsFunc(n.Links, func(l amem.Link) bool { return l.Kind == amem.LinkSupersedes }) ||
		!slices.ContainsFunc(n.Links, func(l amem.Link) bool { return l.Source == newID }) {
		t.Fatalf("restored note's links: %+v", n.Links)
	}
	hist, _ := mem.History(ctx, ns, oldID)
	if last := hist[len(hist)-1]; last.Actor != amem.ActorUser || last.Reason != "restored to current" || last.Version != n.Version {
		t.Fatalf("last version %+v", last)
	}
	if _, err := mem.Enrich(ctx, ns, newID); err != nil {
		t.Fatal(err)
	}
	if n, _ = mem.Get(ctx, ns, oldID); n.SupersededBy != "" {
		t.Fatalf("the curator overrode the caller: %+v", n)
	}
	ids2, _ := searchIDs(t, mem, amem.SearchRequest{Namespace: ns, Query: "I'm allergic to penicillin.", K: 5})
	if ids2[0] != oldID {
		t.Fatalf("restored note's own text: %v", ids2)
	}

	n, err = mem.Update(ctx, ns, oldID, amem.UpdateRequest{Validity: &amem.Validity{SupersededBy: newID}})
	if err != nil {
		t.Fatal(err)
	}
	if n.SupersededBy != newID || !n.ValidUntil.Equal(exampleNew) ||
		!slices.ContainsFunc(n.Links, func(l amem.Link) bool { return l.Source == newID && l.Kind == amem.LinkSupersedes }) {
		t.Fatalf("marked superseded: %+v", n)
	}
	for _, bad := range []amem.Validity{{SupersededBy: oldID}, {SupersededBy: "01JXXXXXXXXXXXXXXXXXXXXXXX"}} {
		if _, err := mem.Update(ctx, ns, oldID, amem.UpdateRequest{Validity: &bad}); err == nil {
			t.Fatalf("validity %+v accepted", bad)
		}
	}
}

// A supersession of a note the curator was not shown, or of a note said
// after the new one, is dropped; deleting the superseding note restores
// the old one to current, with a version.
func TestSupersessionBounds(t *testing.T) {
	ctx := context.Background()
	var target string
	cur := &mock.Curator{ConnectFunc: func(ctx context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
		d := amem.Decision{Supersede: []amem.Supersession{{Target: target, Reason: "not shown"}}}
		for _, c := range cands {
			d.Supersede = append(d.Supersede, amem.Supersession{Target: c.Note.ID, Reason: "replaced"})
		}
		return d, nil
	}}
	mem := openMem(t, cur)
	other, err := mem.Add(ctx, amem.AddRequest{Namespace: "elsewhere", Content: "I live in Boston."})
	if err != nil {
		t.Fatal(err)
	}
	target = other.ID
	later, err := mem.Add(ctx, amem.AddRequest{Namespace: "n", Content: "I live in Boston.", EventTime: exampleNew})
	if err != nil {
		t.Fatal(err)
	}
	earlier, err := mem.Add(ctx, amem.AddRequest{Namespace: "n", Content: "I live in Boston now.", EventTime: exampleOld})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := mem.Get(ctx, "elsewhere", other.ID); n.SupersededBy != "" {
		t.Fatalf("a note not shown was superseded: %+v", n)
	}
	if n, _ := mem.Get(ctx, "n", later.ID); n.SupersededBy != "" {
		t.Fatalf("an earlier note superseded a later one: %+v", n)
	}
	newest, err := mem.Add(ctx, amem.AddRequest{Namespace: "n", Content: "I live in Seattle.", EventTime: exampleNew.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := mem.Get(ctx, "n", earlier.ID); n.SupersededBy != newest.ID {
		t.Fatalf("not superseded: %+v", n)
	}
	if err := mem.Delete(ctx, "n", newest.ID); err != nil {
		t.Fatal(err)
	}
	n, _ := mem.Get(ctx, "n", earlier.ID)
	hist, _ := mem.History(ctx, "n", earlier.ID)
	if n.SupersededBy != "" || !n.ValidUntil.IsZero() || !strings.Contains(hist[len(hist)-1].Reason, "deleted") {
		t.Fatalf("after the superseding note's deletion: %+v, %+v", n, hist[len(hist)-1])
	}
}

// The search invariants hold with supersessions: a note's own text
// first, and the first n hits the same for any k, while superseded notes
// move below what superseded them.
func TestSearchInvariantsWithSupersessions(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	mem, texts := invariantMemory(t, r, "sup", 200, false)
	var all []amem.Note
	if err := amem.EachPage(func(after string, n int) ([]amem.Note, error) {
		return mem.List(ctx, "sup", amem.ListQuery{After: after, Limit: n})
	}, func(page []amem.Note) (bool, error) { all = append(all, page...); return true, nil }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(all); i += 4 {
		by := all[i+1+r.IntN(min(3, len(all)-i-1))]
		if _, err := mem.Update(ctx, "sup", all[i].ID, amem.UpdateRequest{Validity: &amem.Validity{SupersededBy: by.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range searchModes {
		for i, text := range texts {
			if i%5 != 0 {
				continue
			}
			req := m.req
			req.Namespace, req.Query, req.K = "sup", text, 5
			_, res := searchIDs(t, mem, req)
			if len(res) == 0 || sameWords(res[0].Note.Content) != sameWords(text) {
				t.Fatalf("%s: own text %q: first %+v", m.name, text, res)
			}
		}
		for q := range 20 {
			req := m.req
			req.Namespace, req.Query = "sup", texts[q/2*7][:len(texts[q/2*7])/2]+" river"
			// Half the queries leave superseded notes out: a filter, exact
			// and k-independent like the others.
			req.ExcludeSuperseded = q%2 == 1
			var longest []string
			for _, k := range []int{1000, 200, 60, 50, 20, 5, 1} {
				req.K = k
				ids, res := searchIDs(t, mem, req)
				for _, x := range res {
					if req.ExcludeSuperseded && x.Note.SupersededBy != "" {
						t.Fatalf("%s %q, k=%d: superseded %s listed without superseded notes", m.name, req.Query, k, x.Note.ID)
					}
				}
				if longest == nil {
					longest = ids
					pos := make(map[string]int, len(ids))
					for j, id := range ids {
						pos[id] = j
					}
					for j, x := range res {
						if at, ok := pos[x.Note.SupersededBy]; ok && at > j {
							t.Fatalf("%s %q: %s at %d above %s at %d, which superseded it", m.name, req.Query, x.Note.ID, j, x.Note.SupersededBy, at)
						}
					}
					continue
				}
				if !slices.Equal(ids, longest[:min(k, len(longest))]) {
					t.Fatalf("%s %q: k=%d gives %v,\nnot the first %d of k=1000's %v", m.name, req.Query, k, ids, k, longest)
				}
			}
		}
	}
}

// sameWords is a text's words, lower case, as the own-text rule compares
// them.
func sameWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), isSep), " ")
}
