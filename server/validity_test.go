package server

import (
	"net/url"
	"testing"
	"time"

	"github.com/amem-dev/amem/internal/jsonin"
	"github.com/amem-dev/amem/wire"
)

// Issue 30 over REST: PATCH validity marks a note superseded by another
// (the link becomes kind supersedes) and {} restores it, each a version;
// search lists the current note first with superseded_by on the old one,
// as_of answers with what was current then, exclude_superseded leaves
// the old note out; bad values are 400s.
func TestValidityOverREST(t *testing.T) {
	e := newEnvCurator(t, Options{}, nil)
	key, _ := e.key("v")
	const base = "/v1/namespaces/v"
	t0, t1 := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC), time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
	var old, nw wire.Note
	e.must(201, "POST", base+"/notes", key, noteInput{Content: "I live in Boston.", Time: &jsonin.Time{Time: t0}}, &old)
	e.must(201, "POST", base+"/notes", key, noteInput{Content: "I moved to Seattle in March; I live in Seattle now.", Time: &jsonin.Time{Time: t1}}, &nw)

	var got wire.Note
	e.must(200, "PATCH", base+"/notes/"+old.ID, key, map[string]any{"validity": map[string]any{"superseded_by": nw.ID}}, &got)
	if got.SupersededBy != nw.ID || !got.ValidUntil.Equal(t1) || !got.CallerValidity {
		t.Fatalf("patched: %+v", got)
	}
	if len(got.Links) != 1 || got.Links[0].Kind != "supersedes" || got.Links[0].Source != nw.ID {
		t.Fatalf("links: %+v", got.Links)
	}
	search := func(extra string) []wire.Result {
		t.Helper()
		var out wire.ResultList
		e.must(200, "GET", base+"/search?links=false&q="+url.QueryEscape("where do I live")+extra, key, nil, &out)
		return out.Results
	}
	for _, mode := range []string{"lexical", "vector", "hybrid"} {
		res := search("&mode=" + mode)
		if len(res) != 2 || res[0].ID != nw.ID || res[1].ID != old.ID || res[1].SupersededBy != nw.ID || !res[1].ValidUntil.Equal(t1) {
			t.Fatalf("%s: %+v", mode, res)
		}
		if res := search("&mode=" + mode + "&as_of=2026-02-01"); len(res) != 1 || res[0].ID != old.ID || res[0].SupersededBy != "" {
			t.Fatalf("%s as of February: %+v", mode, res)
		}
		if res := search("&mode=" + mode + "&exclude_superseded=true"); len(res) != 1 || res[0].ID != nw.ID {
			t.Fatalf("%s without superseded notes: %+v", mode, res)
		}
	}

	got = wire.Note{} // fields left out of the answer must not stay from the last
	e.must(200, "PATCH", base+"/notes/"+old.ID, key, map[string]any{"validity": map[string]any{}}, &got)
	if got.SupersededBy != "" || !got.ValidUntil.IsZero() || got.Links[0].Kind != "related" {
		t.Fatalf("restored: %+v", got)
	}
	var hist wire.VersionList
	e.must(200, "GET", base+"/notes/"+old.ID+"/history", key, nil, &hist)
	if last := hist.Versions[len(hist.Versions)-1]; last.Reason != "restored to current" || last.Actor != "user" {
		t.Fatalf("last version %+v", last)
	}
	if res := search("&exclude_superseded=true"); len(res) != 2 {
		t.Fatalf("after the restore: %+v", res)
	}

	for _, bad := range []string{"&as_of=March", "&exclude_superseded=maybe"} {
		e.must(400, "GET", base+"/search?q=live"+bad, key, nil, nil)
	}
	e.must(400, "PATCH", base+"/notes/"+old.ID, key, map[string]any{"validity": map[string]any{"superseded_by": old.ID}}, nil)
	e.must(404, "PATCH", base+"/notes/"+old.ID, key, map[string]any{"validity": map[string]any{"superseded_by": "01JZZZZZZZZZZZZZZZZZZZZZZZ"}}, nil)
	e.must(400, "PATCH", base+"/notes/"+old.ID, key, map[string]any{"validity": map[string]any{"until": "2026-01-01T00:00:00Z"}}, nil)
}
