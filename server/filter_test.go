package server

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/mock"
	"github.com/amem-dev/amem/wire"
)

// TestTagSource: notes show which tags the curator added, and
// tag_source=caller finds a tag only where the caller gave it.
func TestTagSource(t *testing.T) {
	dogs := func(amem.Embedder) amem.Curator {
		return &mock.Curator{ConstructFunc: func(_ context.Context, n amem.Note) (amem.Attributes, error) {
			if strings.Contains(n.Content, "dog") {
				return amem.Attributes{Tags: []string{"pets"}}, nil
			}
			return amem.Attributes{}, nil
		}}
	}
	e := newEnvCurator(t, Options{}, dogs)
	key, _ := e.key("t")
	const base = "/v1/namespaces/t"
	var given, guessed wire.Note
	e.must(201, "POST", base+"/notes?wait=true", key, noteInput{Content: "my dog Rex", Tags: []string{"Pets"}}, &given)
	e.must(201, "POST", base+"/notes?wait=true", key, noteInput{Content: "walked past a dog", Tags: []string{"outdoors"}}, &guessed)
	if !slices.Equal(given.CuratorTags, []string{}) || !slices.Equal(guessed.CuratorTags, []string{"pets"}) {
		t.Fatalf("curator tags %v and %v, want [] and [pets]", given.CuratorTags, guessed.CuratorTags)
	}
	var got wire.Note
	e.must(200, "GET", base+"/notes/"+guessed.ID, key, nil, &got)
	if !slices.Equal(got.Tags, []string{"outdoors", "pets"}) || !slices.Equal(got.CuratorTags, []string{"pets"}) {
		t.Errorf("GET note: tags %v, curator tags %v", got.Tags, got.CuratorTags)
	}

	for _, tc := range []struct {
		source string
		want   []string
	}{
		{"", []string{given.ID, guessed.ID}},
		{"any", []string{given.ID, guessed.ID}},
		{"caller", []string{given.ID}},
		{"curator", []string{guessed.ID}},
	} {
		q := url.Values{"tag": {"pets"}}
		if tc.source != "" {
			q.Set("tag_source", tc.source)
		}
		var page wire.NotePage
		e.must(200, "GET", base+"/notes?"+q.Encode(), key, nil, &page)
		var ids []string
		for _, n := range page.Notes {
			ids = append(ids, n.ID)
		}
		q.Set("q", "dog")
		var res wire.ResultList
		e.must(200, "GET", base+"/search?"+q.Encode(), key, nil, &res)
		var hits []string
		for _, r := range res.Results {
			hits = append(hits, r.ID)
			if r.ID == guessed.ID && !slices.Equal(r.CuratorTags, []string{"pets"}) {
				t.Errorf("search result's curator tags %v, want [pets]", r.CuratorTags)
			}
		}
		slices.Sort(ids)
		slices.Sort(hits)
		if !slices.Equal(ids, tc.want) || !slices.Equal(hits, tc.want) {
			t.Errorf("tag_source=%q: notes %v, search %v; want %v", tc.source, ids, hits, tc.want)
		}
	}
	for _, path := range []string{"/notes?tag=pets&tag_source=robot", "/search?q=dog&tag_source=robot"} {
		code, raw := e.do("GET", base+path, key, nil, nil)
		if code != 400 || !strings.Contains(string(raw), `tag_source: invalid input: tag source \"robot\"`) {
			t.Errorf("GET %s: %d %s, want 400 naming tag_source", path, code, raw)
		}
	}
}
