package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/amem-dev/amem/ui"
	"github.com/amem-dev/amem/wire"
)

// The routes the web UI needs: GET /v1/key, GET .../links, and GET
// .../notes newest first and filtered.

func TestKeyRoute(t *testing.T) {
	e := newEnvCurator(t, Options{}, nil)
	scoped, k := e.key("b", "a")
	var got keyInfo
	e.must(200, "GET", "/v1/key", scoped, nil, &got)
	if got.ID != k.ID || got.Admin || !slices.Equal(got.Namespaces, []string{"a", "b"}) {
		t.Errorf("scoped key: %+v", got)
	}
	admin, ak := e.key()
	raw := e.must(200, "GET", "/v1/key", admin, nil, &got)
	if got.ID != ak.ID || !got.Admin || got.Namespaces == nil || len(got.Namespaces) != 0 {
		t.Errorf("admin key: %s", raw)
	}
	if strings.Contains(string(raw), "amem_") {
		t.Errorf("the answer holds a token: %s", raw)
	}
	e.must(401, "GET", "/v1/key", "", nil, nil)
	e.must(401, "GET", "/v1/key", "amem_nope", nil, nil)
	e.must(400, "GET", "/v1/key?x=1", scoped, nil, nil)
}

func TestLinksRoute(t *testing.T) {
	e := newEnv(t, Options{})
	key, _ := e.key("a")
	for _, c := range []string{
		"Caroline went to an LGBTQ support group on Sunday",
		"Caroline is researching adoption agencies after the support group",
		"Caroline wants to adopt a child after the support group",
		"Melanie painted a sunrise over the lake",
		"Melanie is painting the lake again this summer",
	} {
		e.must(201, "POST", "/v1/namespaces/a/notes?wait=true", key, map[string]any{"content": c}, nil)
	}
	// Every link, once: the union of each note's outgoing links.
	var all wire.NotePage
	e.must(200, "GET", "/v1/namespaces/a/notes", key, nil, &all)
	want := map[string]bool{}
	for _, n := range all.Notes {
		for _, l := range n.Links {
			want[l.Source+">"+l.Target] = true
		}
	}
	if len(want) == 0 {
		t.Fatal("the curator linked nothing")
	}
	got := map[string]bool{}
	after, pages := "", 0
	for {
		var page linkPage
		path := "/v1/namespaces/a/links?limit=2"
		if after != "" {
			path += "&after=" + after
		}
		e.must(200, "GET", path, key, nil, &page)
		for _, l := range page.Links {
			id := l.Source + ">" + l.Target
			if got[id] {
				t.Errorf("link %s in two pages", id)
			}
			got[id] = true
		}
		pages++
		if page.Next == "" {
			break
		}
		after = page.Next
	}
	if pages != 3 || len(got) != len(want) {
		t.Errorf("%d pages, %d links; want 3 pages, %d links", pages, len(got), len(want))
	}
	for id := range want {
		if !got[id] {
			t.Errorf("link %s missing", id)
		}
	}

	other, _ := e.key("b")
	e.must(403, "GET", "/v1/namespaces/a/links", other, nil, nil)
	e.must(401, "GET", "/v1/namespaces/a/links", "", nil, nil)
	var empty linkPage
	raw := e.must(200, "GET", "/v1/namespaces/b/links", other, nil, &empty)
	if empty.Links == nil || empty.Next != "" {
		t.Errorf("an empty namespace: %s", raw)
	}
	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "after=nope", "order=newest", "limit=1&limit=2"} {
		e.must(400, "GET", "/v1/namespaces/a/links?"+q, key, nil, nil)
	}
}

func TestBrowseNotes(t *testing.T) {
	e := newEnvCurator(t, Options{}, nil) // no curator: notes keep their tags
	key, _ := e.key("a")
	var ids []string
	for i := range 7 {
		body := map[string]any{"content": fmt.Sprintf("note %d", i), "time": fmt.Sprintf("2024-05-0%dT10:00:00Z", i+1),
			"tags": []string{"all", fmt.Sprintf("parity%d", i%2)}, "metadata": map[string]string{"i": fmt.Sprint(i)}}
		var n wire.Note
		e.must(201, "POST", "/v1/namespaces/a/notes", key, body, &n)
		ids = append(ids, n.ID)
	}
	other, _ := e.key("b")
	e.must(201, "POST", "/v1/namespaces/b/notes", other, map[string]any{"content": "b's note", "tags": []string{"all"}}, nil)

	walk := func(query string) []string {
		t.Helper()
		var out []string
		after := ""
		for range 20 {
			var page wire.NotePage
			path := "/v1/namespaces/a/notes?limit=3&" + query
			if after != "" {
				path += "&after=" + after
			}
			e.must(200, "GET", path, key, nil, &page)
			for _, n := range page.Notes {
				out = append(out, n.ID)
			}
			if page.Next == "" {
				return out
			}
			after = page.Next
		}
		t.Fatalf("%s: paging does not end", query)
		return nil
	}
	reversed := slices.Clone(ids)
	slices.Reverse(reversed)
	pick := func(from []string, idx ...int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, from[i])
		}
		return out
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"order=oldest", ids},
		{"order=newest", reversed},
		{"tag=ALL", ids},
		{"tag=parity0&order=newest", pick(ids, 6, 4, 2, 0)},
		{"tag=parity1&tag=all", pick(ids, 1, 3, 5)},
		{"meta=i%3D3", pick(ids, 3)},
		{"from=2024-05-03&to=2024-05-05", pick(ids, 2, 3)},
		{"from=2024-05-03&order=newest&tag=parity0", pick(ids, 6, 4, 2)},
		{"state=done&order=newest", reversed}, // without a curator a note is done at once
		{"state=pending&tag=all", nil},
		{"tag=none", nil},
	} {
		if got := walk(c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}

	e.must(403, "GET", "/v1/namespaces/a/notes?order=newest", other, nil, nil)
	e.must(401, "GET", "/v1/namespaces/a/notes?order=newest", "", nil, nil)
	for _, q := range []string{"order=random", "order=newest&order=oldest", "from=yesterday", "to=2024-05-01&from=2024-05-02",
		"meta=novalue", "tag=", "after=nope&order=newest", "limit=0&tag=all", "sort=newest",
		strings.Repeat("tag=t&", 65)} {
		e.must(400, "GET", "/v1/namespaces/a/notes?"+q, key, nil, nil)
	}
}

// TestBrowseNotesByEventTime: order=oldest_event and newest_event list
// by event time, not creation, ties in ID order, paging without a gap
// or a repeat, under the filters.
func TestBrowseNotesByEventTime(t *testing.T) {
	e := newEnvCurator(t, Options{}, nil)
	key, _ := e.key("a")
	// Created in this order, dated out of it; two share a time.
	days := []string{"2024-05-04", "2024-05-01", "2024-05-06", "2024-05-01", "2024-05-03", "2024-05-07", "2024-05-02"}
	var ids []string
	for i, d := range days {
		body := map[string]any{"content": fmt.Sprintf("note %d", i), "time": d + "T10:00:00Z",
			"tags": []string{"all", fmt.Sprintf("parity%d", i%2)}}
		var n wire.Note
		e.must(201, "POST", "/v1/namespaces/a/notes", key, body, &n)
		ids = append(ids, n.ID)
	}
	walk := func(query string) []string {
		t.Helper()
		var out []string
		after := ""
		for range 20 {
			var page wire.NotePage
			path := "/v1/namespaces/a/notes?limit=2&" + query
			if after != "" {
				path += "&after=" + after
			}
			e.must(200, "GET", path, key, nil, &page)
			for _, n := range page.Notes {
				out = append(out, n.ID)
			}
			if page.Next == "" {
				return out
			}
			after = page.Next
		}
		t.Fatalf("%s: paging does not end", query)
		return nil
	}
	pick := func(idx ...int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, ids[i])
		}
		return out
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"order=oldest_event", pick(1, 3, 6, 4, 0, 2, 5)},
		{"order=newest_event", pick(5, 2, 0, 4, 6, 3, 1)},
		{"order=newest_event&tag=parity0", pick(2, 0, 4, 6)},
		{"order=oldest_event&from=2024-05-02&to=2024-05-06", pick(6, 4, 0)},
		{"order=newest_event&state=pending", nil},
	} {
		if got := walk(c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	e.must(400, "GET", "/v1/namespaces/a/notes?order=newest_event&after=01ARZ3NDEKTSV4RRFFQ69G5FAV", key, nil, nil)
}

// TestUIServed: the UI is mounted at /ui/ with its security headers, and
// needs no key (it holds no data; the API it calls does).
func TestUIServed(t *testing.T) {
	e := newEnvCurator(t, Options{}, nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(e.url + "/ui")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /ui: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, path := range []string{"/ui/", "/ui/js/app.js", "/ui/app.css"} {
		resp, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != 200 || h.Get("Content-Security-Policy") != ui.CSP ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: %d %v", path, resp.StatusCode, h)
		}
	}
	e.must(405, "POST", "/ui/", "", "x", nil)
}

// TestRootAndSignInHint: GET / leads to the UI while other unknown paths
// stay problem+json 404s, and a server with no valid key says at start
// how to make one.
func TestRootAndSignInHint(t *testing.T) {
	var log syncBuffer
	e := newEnvCurator(t, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}, nil)
	if !strings.Contains(log.String(), "amem keys create") {
		t.Errorf("a server without keys logs no hint how to sign in:\n%s", log.String())
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(e.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /: %d to %q, want 302 to /ui/", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, err = http.Get(e.url + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("GET /nope: %d %s, want a problem+json 404", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	// With a key, no hint.
	e.key("a")
	var again syncBuffer
	New(e.mem, Options{Keys: e.store, Logger: slog.New(slog.NewTextHandler(&again, nil))})
	if strings.Contains(again.String(), "amem keys create") {
		t.Errorf("a server with a key logs the hint: %s", again.String())
	}
}
