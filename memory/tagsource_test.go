package memory_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
)

func wantTags(t *testing.T, what string, n amem.Note, tags, curated []string) {
	t.Helper()
	if !slices.Equal(n.Tags, tags) || !slices.Equal(n.CuratorTags, curated) {
		t.Errorf("%s: tags %v, curator tags %v; want %v and %v", what, n.Tags, n.CuratorTags, tags, curated)
	}
}

// TestTagProvenance follows a note's tags through construction,
// evolution, a caller's edit and a restore: the curator's are the ones it
// added, and a caller's edit makes every tag the caller's.
func TestTagProvenance(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, linkAllCurator()) // construct adds "scripted", evolve "linked"
	a, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "Caroline went hiking", Tags: []string{"Outdoors"}})
	if err != nil {
		t.Fatal(err)
	}
	wantTags(t, "constructed", a, []string{"Outdoors", "scripted"}, []string{"scripted"})
	if got := a.CallerTags(); !slices.Equal(got, []string{"Outdoors"}) {
		t.Errorf("caller tags %v, want [Outdoors]", got)
	}

	// A curator repeating a caller's tag leaves it the caller's.
	b, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "Caroline went camping", Tags: []string{"Scripted"}})
	if err != nil {
		t.Fatal(err)
	}
	wantTags(t, "caller gave the curator's tag", b, []string{"Scripted"}, nil)
	// b's connection evolved a: its new tag is the curator's too.
	a = getNote(t, mem, a.ID)
	wantTags(t, "evolved", a, []string{"Outdoors", "scripted", "linked"}, []string{"scripted", "linked"})

	t.Run("filter", func(t *testing.T) {
		for _, tc := range []struct {
			src  amem.TagSource
			want []string
		}{
			{amem.TagSourceAny, []string{a.ID, b.ID}},
			{amem.TagSourceCaller, []string{b.ID}},
			{amem.TagSourceCurator, []string{a.ID}},
		} {
			f := amem.Filter{Tags: []string{"scripted"}, TagSource: tc.src}
			notes, err := mem.Browse(ctx, "ns", amem.BrowseQuery{Limit: 10, Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			if got := noteIDsOf(notes); !slices.Equal(got, tc.want) {
				t.Errorf("Browse source %q: %v, want %v", tc.src, got, tc.want)
			}
			res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "Caroline", Filter: f, LinksPerHit: -1})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res {
				got = append(got, r.Note.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Search source %q: %v, want %v", tc.src, got, tc.want)
			}
		}
	})

	t.Run("bad source", func(t *testing.T) {
		f := amem.Filter{Tags: []string{"scripted"}, TagSource: "robot"}
		if _, err := mem.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "x", Filter: f}); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("Search: %v, want ErrInvalid", err)
		}
		f.Tags = nil // a source is checked even where it filters nothing
		if _, err := mem.Browse(ctx, "ns", amem.BrowseQuery{Limit: 1, Filter: f}); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("Browse: %v, want ErrInvalid", err)
		}
	})

	evolved := a.Version
	edited, err := mem.Update(ctx, "ns", a.ID, amem.UpdateRequest{Tags: &[]string{"Outdoors", "linked"}})
	if err != nil {
		t.Fatal(err)
	}
	wantTags(t, "a caller's edit", edited, []string{"Outdoors", "linked"}, nil)
	hist, err := mem.History(ctx, "ns", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := hist[len(hist)-1]
	if i := slices.IndexFunc(last.Changes, func(c amem.FieldChange) bool { return c.Field == "curator_tags" }); i < 0 ||
		last.Changes[i].New != "[]" {
		t.Errorf("the edit's changes %+v: want curator_tags to []", last.Changes)
	}

	restored, err := mem.Restore(ctx, "ns", a.ID, evolved)
	if err != nil {
		t.Fatal(err)
	}
	wantTags(t, "restored", restored, []string{"Outdoors", "scripted", "linked"}, []string{"scripted", "linked"})

	// A content edit re-enriches: the caller's tags stay the caller's.
	if _, err := mem.Update(ctx, "ns", b.ID, amem.UpdateRequest{Content: ptr("Caroline went camping by the lake")}); err != nil {
		t.Fatal(err)
	}
	wantTags(t, "re-enriched", getNote(t, mem, b.ID), []string{"Scripted"}, nil)
}

func ptr[T any](v T) *T { return &v }

func noteIDsOf(notes []amem.Note) []string {
	var out []string
	for _, n := range notes {
		out = append(out, n.ID)
	}
	slices.Sort(out)
	return out
}

func TestParseTagSource(t *testing.T) {
	for in, want := range map[string]amem.TagSource{
		"": amem.TagSourceAny, "any": amem.TagSourceAny, "caller": amem.TagSourceCaller,
		" Curator ": amem.TagSourceCurator,
	} {
		if got, err := amem.ParseTagSource(in); err != nil || got != want {
			t.Errorf("ParseTagSource(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := amem.ParseTagSource("user"); !errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), "caller") {
		t.Errorf("ParseTagSource(user): %v, want ErrInvalid naming the choices", err)
	}
}

// TestTagProvenanceTransfer: an export keeps curator tags; an export
// line without them (written before they existed) imports with caller
// tags only; a line can't make a tag the curator's that the note lacks.
func TestTagProvenanceTransfer(t *testing.T) {
	ctx := context.Background()
	src := openMem(t, linkAllCurator())
	a, err := src.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "Caroline went hiking", Tags: []string{"Outdoors"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := src.Export(ctx, &buf, "ns"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"curator_tags":["scripted"]`) {
		t.Fatalf("export has no curator_tags: %s", buf.String())
	}
	dst := openMem(t, nil)
	if _, err := dst.Import(ctx, bytes.NewReader(buf.Bytes()), memory.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	wantTags(t, "imported", getNote(t, dst, a.ID), []string{"Outdoors", "scripted"}, []string{"scripted"})

	old := strings.Replace(buf.String(), `"curator_tags":["scripted"],`, "", 1)
	older := openMem(t, nil)
	if _, err := older.Import(ctx, strings.NewReader(old), memory.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	wantTags(t, "imported from an older export", getNote(t, older, a.ID), []string{"Outdoors", "scripted"}, nil)

	for name, line := range map[string]string{
		"a curator tag the note lacks": strings.Replace(buf.String(), `"curator_tags":["scripted"]`, `"curator_tags":["pets"]`, 1),
		"curator tags on a plain line": `{"content": "a plain note", "tags": ["pets"], "curator_tags": ["pets"]}`,
	} {
		_, err := openMem(t, nil).Import(ctx, strings.NewReader(line), memory.ImportOptions{})
		if !errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), "curator") {
			t.Errorf("%s: %v, want ErrInvalid about curator tags", name, err)
		}
	}
}
