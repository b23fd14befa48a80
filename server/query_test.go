package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/amem-dev/amem/wire"
)

// TestUnknownQueryParameters: every route refuses a query parameter it
// does not take, naming it, before doing anything; the documented ones
// keep working.
func TestUnknownQueryParameters(t *testing.T) {
	e := newEnv(t, Options{})
	key, _ := e.key("q")
	var n wire.Note
	e.must(201, "POST", "/v1/namespaces/q/notes?wait=true", key, map[string]any{"content": "a note to read"}, &n)

	for _, rt := range e.api.routes() {
		path := strings.NewReplacer("{ns}", "q", "{id}", n.ID).Replace(rt.path)
		var body any
		if rt.method == "POST" || rt.method == "PATCH" {
			body = `{"content": "refused"}`
		}
		got, raw := e.do(rt.method, path+"?colour=red", key, body, nil)
		var p Problem
		if err := json.Unmarshal(raw, &p); got != 400 || err != nil || !strings.Contains(p.Detail, `unknown query parameter "colour"`) {
			t.Errorf("%s?colour=red: %d %s, want 400 naming colour", rt.pattern(), got, raw)
		}
	}
	var st wire.Stats
	e.must(200, "GET", "/v1/namespaces/q/stats", key, nil, &st)
	var got wire.Note
	e.must(200, "GET", "/v1/namespaces/q/notes/"+n.ID, key, nil, &got)
	if st.Notes != 1 || got.Content != n.Content {
		t.Fatalf("refused requests changed something: %d notes, content %q", st.Notes, got.Content)
	}

	// The key is checked first: without one, 401 says nothing more.
	e.must(401, "GET", "/v1/namespaces/q/search?q=x&colour=red", "", nil, nil)
	e.must(403, "GET", "/v1/namespaces/other/search?q=x&colour=red", key, nil, nil)

	// Every documented parameter is taken.
	for _, c := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"GET", "/v1/namespaces/q/notes?after=" + n.ID + "&limit=2&state=done", nil, 200},
		{"POST", "/v1/namespaces/q/notes?wait=false", `{"content": "another"}`, 201},
		{"POST", "/v1/namespaces/q/notes/batch?wait=false", `{"notes": [{"content": "more"}]}`, 201},
		{"GET", "/v1/namespaces/q/search?q=note&k=2&mode=lexical&links=false&tag=x&tag=y&meta=a=b&meta=c=d&from=2024-01-01&to=2030-01-01", nil, 200},
		{"GET", "/v1/namespaces/q/search?q=note&k=2&q2=", nil, 400},
		{"GET", "/v1/namespaces/q/search?q=note&profile=general&min_score=0.2", nil, 200},
		{"GET", "/v1/namespaces/q/notes?state=done&state=failed", nil, 400},
	} {
		if got, raw := e.do(c.method, c.path, key, c.body, nil); got != c.want {
			t.Errorf("%s %s: %d %s, want %d", c.method, c.path, got, raw, c.want)
		}
	}
}
