package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/offline"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/wire"
)

// env is a real server over a real listener: a sqlite store, the lexical
// embedder (no model download), the offline curator and background
// workers, as amem serve runs it.
type env struct {
	t     testing.TB
	url   string
	mem   *memory.Memory
	store *sqlite.Store
	api   *Server
}

func newEnv(t testing.TB, opts Options) *env {
	t.Helper()
	return newEnvCurator(t, opts, func(emb amem.Embedder) amem.Curator { return offline.New(emb, nil) })
}

// newEnvCurator is newEnv with the curator cur returns, none if nil: a
// test whose notes must keep the tags it gave them has none.
func newEnvCurator(t testing.TB, opts Options, cur func(amem.Embedder) amem.Curator) *env {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	emb := lexical.New(nil)
	var curator amem.Curator
	if cur != nil {
		curator = cur(emb)
	}
	var api *Server // set before anything is enriched
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: emb, Curator: curator, Enrich: enrich.Options{Async: true,
		OnEnrich: func(n amem.Note, err error) { api.EnrichResult(n, err) }}})
	if err != nil {
		t.Fatal(err)
	}
	opts.Keys = st
	if opts.Webhooks == nil {
		opts.Webhooks = st
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	api = New(mem, opts)
	srv := httptest.NewServer(api)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mem.RunWorkers(wctx, memory.WorkerOptions{PollInterval: 50 * time.Millisecond})
	}()
	t.Cleanup(func() {
		srv.Close()
		stop()
		<-done
		mem.Close()
	})
	return &env{t: t, url: srv.URL, mem: mem, store: st, api: api}
}

// key creates an API key for the namespaces (none: admin).
func (e *env) key(nss ...string) (string, auth.Key) {
	e.t.Helper()
	k, token, err := auth.NewKey("test", len(nss) == 0, nss, time.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.CreateKey(context.Background(), k); err != nil {
		e.t.Fatal(err)
	}
	return token, k
}

// do sends a request and decodes a JSON answer into out (if non-nil); it
// returns the status and the raw body.
func (e *env) do(method, path, key string, body any, out any) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode >= 400 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			e.t.Errorf("%s %s: %d with Content-Type %q, want application/problem+json", method, path, resp.StatusCode, ct)
		}
		checkReadable(e.t, raw)
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			e.t.Fatalf("%s %s: decode %s: %v", method, path, raw, err)
		}
	}
	return resp.StatusCode, raw
}

// must is do that fails the test unless the status is want.
func (e *env) must(want int, method, path, key string, body, out any) []byte {
	e.t.Helper()
	got, raw := e.do(method, path, key, body, out)
	if got != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, want, raw)
	}
	return raw
}

func TestNotesEndToEnd(t *testing.T) {
	e := newEnv(t, Options{})
	key, _ := e.key("alice")
	const base = "/v1/namespaces/alice"

	var first wire.Note
	raw := e.must(201, "POST", base+"/notes", key, map[string]any{
		"content": "Caroline went to an LGBTQ support group on Sunday", "time": "2023-05-07T13:56:00Z",
	}, &first)
	if len(first.ID) != 26 || first.EventTime.Format(time.RFC3339) != "2023-05-07T13:56:00Z" {
		t.Fatalf("created note %+v", first)
	}
	if bytes.Contains(raw, []byte(`"embedding"`)) {
		t.Errorf("the API returned an embedding: %s", raw)
	}
	var second wire.Note
	e.must(201, "POST", base+"/notes?wait=true", key, map[string]any{
		"content": "Caroline is researching adoption agencies after the support group",
	}, &second)
	if second.Enrichment.State != string(amem.EnrichDone) || len(second.Keywords) == 0 || second.Context == "" {
		t.Fatalf("wait=true returned %+v, want an enriched note", second.Enrichment)
	}

	var found struct {
		Results []wire.Result `json:"results"`
	}
	e.must(200, "GET", base+"/search?q=support+group&k=5", key, nil, &found)
	if len(found.Results) < 2 || found.Results[0].Kind != string(amem.Direct) || found.Results[0].Content == "" || found.Results[0].ID == "" {
		t.Fatalf("search: %+v", found.Results)
	}

	var got wire.Note
	e.must(200, "GET", base+"/notes/"+first.ID, key, nil, &got)
	if got.Content != first.Content {
		t.Fatalf("get: %q", got.Content)
	}

	eventually(t, func() bool {
		e.must(200, "GET", base+"/notes/"+first.ID, key, nil, &got)
		return got.Enrichment.State == string(amem.EnrichDone)
	})
	// The first note's enrichment, which finished after the second's, may
	// have linked the two: read the second again.
	e.must(200, "GET", base+"/notes/"+second.ID, key, nil, &second)
	var links struct {
		Links []wire.Neighbor `json:"links"`
	}
	e.must(200, "GET", base+"/notes/"+second.ID+"/links", key, nil, &links)
	if len(links.Links) != len(second.Links) {
		t.Fatalf("links: %d neighbours, the note has %d links", len(links.Links), len(second.Links))
	}

	var patched wire.Note
	e.must(200, "PATCH", base+"/notes/"+first.ID, key, map[string]any{
		"content": "Caroline went to a support group on Sunday afternoon", "reason": "typo",
	}, &patched)
	if patched.Content != "Caroline went to a support group on Sunday afternoon" {
		t.Fatalf("patch: %q", patched.Content)
	}
	var hist struct {
		Versions []wire.Version `json:"versions"`
	}
	e.must(200, "GET", base+"/notes/"+first.ID+"/history", key, nil, &hist)
	// The patch is a version by the user; the workers may already have
	// added the re-enrichment it asks for after it.
	if !slices.ContainsFunc(hist.Versions, func(v wire.Version) bool {
		return v.Version == patched.Version && v.Actor == string(amem.ActorUser) && v.Reason == "typo"
	}) {
		t.Fatalf("history lacks the patch as version %d: %+v", patched.Version, hist.Versions)
	}
	var usage struct {
		Usage []wire.UsageTotal `json:"usage"`
	}
	e.must(200, "GET", base+"/notes/"+first.ID+"/usage", key, nil, &usage)
	if usage.Usage == nil {
		t.Fatal("usage of a note the offline curator enriched is not an empty list")
	}
	e.must(404, "GET", base+"/notes/01ARZ3NDEKTSV4RRFFQ69G5FAV/usage", key, nil, nil)
	var restored wire.Note
	e.must(200, "POST", base+"/notes/"+first.ID+"/restore", key, map[string]any{"version": 1}, &restored)
	if restored.Content != first.Content {
		t.Fatalf("restore: %q", restored.Content)
	}
	var enriched wire.Note
	e.must(200, "POST", base+"/notes/"+first.ID+"/enrich", key, nil, &enriched)
	if enriched.Enrichment.State != string(amem.EnrichDone) {
		t.Fatalf("enrich: %+v", enriched.Enrichment)
	}

	e.must(204, "DELETE", base+"/notes/"+first.ID, key, nil, nil)
	e.must(404, "GET", base+"/notes/"+first.ID, key, nil, nil)
	e.must(404, "DELETE", base+"/notes/"+first.ID, key, nil, nil)

	var st wire.Stats
	e.must(200, "GET", base+"/stats", key, nil, &st)
	if st.Notes != 1 {
		t.Fatalf("stats: %d notes, want 1", st.Notes)
	}
	var nss wire.NamespaceList
	e.must(200, "GET", "/v1/namespaces", key, nil, &nss)
	if len(nss.Namespaces) != 1 || nss.Namespaces[0].Name != "alice" {
		t.Fatalf("namespaces: %+v", nss)
	}
}

func TestBatchAndPaging(t *testing.T) {
	e := newEnv(t, Options{})
	key, _ := e.key("bulk")
	notes := make([]map[string]any, 1000)
	for i := range notes {
		notes[i] = map[string]any{"content": fmt.Sprintf("note number %d about topic %d", i, i%17)}
	}
	var created wire.NotePage
	e.must(201, "POST", "/v1/namespaces/bulk/notes/batch", key, map[string]any{"notes": notes}, &created)
	if len(created.Notes) != 1000 {
		t.Fatalf("batch created %d notes", len(created.Notes))
	}
	for i, n := range created.Notes {
		if n.Content != notes[i]["content"] {
			t.Fatalf("note %d is %q, out of request order", i, n.Content)
		}
	}

	seen := map[string]bool{}
	after, pages := "", 0
	for {
		var page wire.NotePage
		e.must(200, "GET", "/v1/namespaces/bulk/notes?limit=300&after="+after, key, nil, &page)
		pages++
		for _, n := range page.Notes {
			if seen[n.ID] || n.ID <= after {
				t.Fatalf("note %s twice or out of order", n.ID)
			}
			seen[n.ID] = true
			after = n.ID
		}
		if page.Next == "" {
			break
		}
	}
	if len(seen) != 1000 || pages != 4 {
		t.Fatalf("paged %d notes in %d pages, want 1000 in 4", len(seen), pages)
	}

	// The workers work through the batch in the background.
	eventually(t, func() bool {
		var st wire.Stats
		e.must(200, "GET", "/v1/namespaces/bulk/stats", key, nil, &st)
		if st.Notes != 1000 {
			t.Fatalf("stats: %d notes", st.Notes)
		}
		return st.ByState[string(amem.EnrichDone)] > 0
	})
}

func TestAuthorisation(t *testing.T) {
	e := newEnv(t, Options{})
	aliceKey, _ := e.key("alice")
	bobKey, _ := e.key("bob")
	admin, _ := e.key()
	revoked, rk := e.key("alice")
	if err := e.store.RevokeKey(context.Background(), rk.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	var note wire.Note
	e.must(201, "POST", "/v1/namespaces/alice/notes", aliceKey, map[string]any{"content": "secret plan: surprise party for Bob"}, &note)

	noteURL := "/v1/namespaces/alice/notes/" + note.ID
	ghostURL := "/v1/namespaces/ghost/notes/" + note.ID
	for _, c := range []struct {
		name, key, method, path string
		body                    any
		want                    int
	}{
		{"no key", "", "GET", noteURL, nil, 401},
		{"wrong key", "amem_" + strings.Repeat("x", 43), "GET", noteURL, nil, 401},
		{"not a key", "hello", "GET", noteURL, nil, 401},
		{"revoked key", revoked, "GET", noteURL, nil, 401},
		{"other namespace, existing", bobKey, "GET", noteURL, nil, 403},
		{"other namespace, missing", bobKey, "GET", ghostURL, nil, 403},
		{"other namespace, search", bobKey, "GET", "/v1/namespaces/alice/search?q=party", nil, 403},
		{"other namespace, write", bobKey, "POST", "/v1/namespaces/alice/notes", map[string]any{"content": "x"}, 403},
		{"other namespace, delete", bobKey, "DELETE", noteURL, nil, 403},
		{"no key, delete", "", "DELETE", noteURL, nil, 401},
		{"admin", admin, "GET", noteURL, nil, 200},
		{"owner", aliceKey, "GET", noteURL, nil, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, raw := e.do(c.method, c.path, c.key, c.body, nil)
			if got != c.want {
				t.Fatalf("status %d, want %d: %s", got, c.want, raw)
			}
			if c.want >= 400 && bytes.Contains(raw, []byte("surprise")) {
				t.Fatalf("a %d answer leaks the note: %s", got, raw)
			}
		})
	}
	// The two 403s are the same whether or not the note exists there.
	_, a := e.do("GET", noteURL, bobKey, nil, nil)
	_, b := e.do("GET", "/v1/namespaces/alice/notes/"+strings.Repeat("0", 26), bobKey, nil, nil)
	if !bytes.Equal(a, bytes.ReplaceAll(b, []byte(strings.Repeat("0", 26)), []byte(note.ID))) {
		t.Fatalf("403 differs for an existing and a missing note:\n%s\n%s", a, b)
	}
	// Nothing was written or deleted by the refused requests.
	var nss wire.NamespaceList
	e.must(200, "GET", "/v1/namespaces", admin, nil, &nss)
	if len(nss.Namespaces) != 1 {
		t.Fatalf("namespaces after refused writes: %+v", nss.Namespaces)
	}
	e.must(200, "GET", noteURL, aliceKey, nil, nil)
	// A key's namespace list is filtered to what it may see.
	e.must(200, "GET", "/v1/namespaces", bobKey, nil, &nss)
	if len(nss.Namespaces) != 0 {
		t.Fatalf("bob sees %+v", nss.Namespaces)
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, Options{MaxBodyBytes: 64 << 10})
	key, _ := e.key("ns")
	var kept wire.Note
	e.must(201, "POST", "/v1/namespaces/ns/notes", key, map[string]any{"content": "kept"}, &kept)
	const notes = "/v1/namespaces/ns/notes"
	for _, c := range []struct {
		name, method, path string
		body               any
		want               int
		detail             string
	}{
		{"malformed JSON", "POST", notes, `{"content": "x"`, 400, "body is not valid JSON: it ends before the object is closed"},
		{"not JSON", "POST", notes, `content=x`, 400, "body is not valid JSON at byte 1"},
		{"empty body", "POST", notes, ``, 400, "empty"},
		{"unknown field", "POST", notes, `{"content": "x", "colour": "red"}`, 400, `unknown field "colour"`},
		{"wrong type", "POST", notes, `{"content": 5}`, 400, `field "content": must be a string, not a number`},
		{"two objects", "POST", notes, `{"content": "x"} {"content": "y"}`, 400, "nothing after it"},
		{"empty content", "POST", notes, `{"content": ""}`, 400, "content"},
		{"bad time", "POST", notes, `{"content": "x", "time": "yesterday"}`, 400, "time"},
		{"content over the limit", "POST", notes, map[string]any{"content": strings.Repeat("a", memory.DefaultMaxContentBytes+1)}, 400, "content"},
		{"body over the limit", "POST", notes, map[string]any{"content": strings.Repeat("a", 70<<10)}, 413, "over"},
		{"batch too long", "POST", notes + "/batch", map[string]any{"notes": make([]noteInput, 1001)}, 400, "at most 1000"},
		{"batch body over the limit", "POST", notes + "/batch", map[string]any{"notes": []noteInput{{Content: strings.Repeat("b", 70<<10)}}}, 413, "over"},
		{"batch with one bad note", "POST", notes + "/batch", `{"notes": [{"content": "fine"}, {"content": ""}]}`, 400, "note 1"},
		{"invalid ID", "GET", notes + "/not-an-id", nil, 400, "not a note ID"},
		{"invalid ID, patch", "PATCH", notes + "/not-an-id", `{"content": "y"}`, 400, "not a note ID"},
		{"empty patch", "PATCH", notes + "/" + kept.ID, `{}`, 400, "nothing to change"},
		{"invalid namespace", "GET", "/v1/namespaces/a%20b/notes", nil, 400, "namespace"},
		{"bad k", "GET", "/v1/namespaces/ns/search?q=x&k=0", nil, 400, "k="},
		{"no query", "GET", "/v1/namespaces/ns/search", nil, 400, "q is required"},
		{"bad mode", "GET", "/v1/namespaces/ns/search?q=x&mode=magic", nil, 400, "mode="},
		{"bad limit", "GET", notes + "?limit=5000", nil, 400, "limit="},
		{"bad version", "POST", notes + "/" + kept.ID + "/restore", `{"version": 0}`, 400, "version"},
		{"no such route", "GET", "/v2/anything", nil, 404, "no such route"},
		{"wrong method", "PUT", notes + "/" + kept.ID, `{"content": "y"}`, 405, "use GET, PATCH, DELETE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, raw := e.do(c.method, c.path, key, c.body, nil)
			if got != c.want {
				t.Fatalf("status %d, want %d: %s", got, c.want, raw)
			}
			var p Problem
			if err := json.Unmarshal(raw, &p); err != nil || p.Status != c.want || !strings.Contains(p.Detail, c.detail) {
				t.Fatalf("problem %s (err %v), want status %d and a detail with %q", raw, err, c.want, c.detail)
			}
		})
	}
	var st wire.Stats
	e.must(200, "GET", "/v1/namespaces/ns/stats", key, nil, &st)
	var got wire.Note
	e.must(200, "GET", notes+"/"+kept.ID, key, nil, &got)
	if st.Notes != 1 || got.Content != "kept" || got.Version != kept.Version && got.Enrichment.State != string(amem.EnrichDone) {
		t.Fatalf("bad input changed something: %d notes, note %+v", st.Notes, got)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t, Options{})
	key, _ := e.key("m")
	e.must(200, "GET", "/healthz", "", nil, nil)
	e.must(200, "GET", "/readyz", "", nil, nil)
	e.must(201, "POST", "/v1/namespaces/m/notes?wait=true", key, map[string]any{"content": "metrics are counted"}, nil)
	raw := e.must(200, "GET", "/metrics", "", nil, nil)
	for _, want := range []string{
		`amem_http_requests_total{code="201",route="POST /v1/namespaces/{ns}/notes"} 1`,
		`amem_http_request_duration_seconds_count{route="POST /v1/namespaces/{ns}/notes"} 1`,
		`amem_enrich_queue_depth 0`,
		`amem_enrichments_total{result="done"} 1`,
		`amem_notes{state="done"} 1`,
		`amem_llm_tokens_total{kind="prompt"} 0`,
		`amem_index_builds_total 0`,
		`amem_index_loads_total{kind="vector"} 0`,
		`amem_index_loads_total{kind="fulltext"} 0`,
	} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if bytes.Contains(raw, []byte(`"m"`)) || bytes.Contains(raw, []byte(key)) {
		t.Error("/metrics names a namespace or a key")
	}
	e.api.Drain()
	e.must(503, "GET", "/readyz", "", nil, nil)
	e.must(200, "GET", "/healthz", "", nil, nil)
}

// eventually polls cond for up to 60 s.
func eventually(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
