package server

import (
	"bytes"
	"context"
	"testing"

	"github.com/amem-dev/amem/wire"
)

// A retention policy is set and read over the API, refused when invalid,
// shown with what it would remove in the policy and the stats; applied,
// the notes past it are in the trash; another namespace's key can
// neither read nor set it.
func TestRetentionEndToEnd(t *testing.T) {
	e := newEnv(t, Options{})
	alice, _ := e.key("alice")
	bob, _ := e.key("bob")
	const base = "/v1/namespaces/alice"
	var none wire.Retention
	e.must(200, "GET", base+"/retention", alice, nil, &none)
	if none.MaxAge != "" || none.MaxNotes != 0 || none.Due != 0 || none.Namespace != "alice" {
		t.Fatalf("no policy: %+v", none)
	}
	var notes []wire.Note
	for _, at := range []string{"2020-01-01T00:00:00Z", "2021-01-01T00:00:00Z", "2022-01-01T00:00:00Z"} {
		var n wire.Note
		e.must(201, "POST", base+"/notes", alice, map[string]any{"content": "written " + at, "time": at}, &n)
		notes = append(notes, n)
	}
	for _, bad := range []map[string]any{
		{"max_age": "5m"}, {"max_age": "ninety days"}, {"max_age": "-1h"}, {"max_notes": -1}, {"max_notes": 1, "keep": "all"},
	} {
		e.must(400, "PUT", base+"/retention", alice, bad, nil)
	}
	var got wire.Retention
	e.must(200, "PUT", base+"/retention", alice, map[string]any{"max_notes": 1, "max_age": "36500d"}, &got)
	if got.MaxNotes != 1 || got.MaxAge != "36500d" || got.Due != 2 || got.OldestDue == nil || got.OldestDue.ID != notes[0].ID {
		t.Fatalf("policy set: %+v", got)
	}
	var st wire.Stats
	e.must(200, "GET", base+"/stats", alice, nil, &st)
	if st.Retention == nil || st.Retention.Due != 2 {
		t.Fatalf("stats retention: %+v", st.Retention)
	}

	for _, c := range []struct {
		method string
		body   any
	}{{"GET", nil}, {"PUT", map[string]any{}}} {
		if code, raw := e.do(c.method, base+"/retention", bob, c.body, nil); code != 403 || bytes.Contains(raw, []byte("newest")) {
			t.Errorf("bob %s alice's retention: %d %s, want 403", c.method, code, raw)
		}
	}
	e.must(200, "GET", "/v1/namespaces/bob/retention", bob, nil, &none)
	if none.Due != 0 || none.MaxNotes != 0 {
		t.Fatalf("bob's policy: %+v", none)
	}

	if n, err := e.mem.ApplyRetention(context.Background(), "", 0); err != nil || n != 2 {
		t.Fatalf("apply: %d, %v", n, err)
	}
	var page wire.TrashPage
	e.must(200, "GET", base+"/trash", alice, nil, &page)
	if len(page.Notes) != 2 {
		t.Fatalf("trash after retention: %+v", page)
	}
	e.must(200, "PUT", base+"/retention", alice, map[string]any{}, &got)
	if got.MaxNotes != 0 || got.MaxAge != "" || got.Due != 0 {
		t.Fatalf("policy off: %+v", got)
	}
	var after wire.Stats
	e.must(200, "GET", base+"/stats", alice, nil, &after)
	if after.Retention != nil {
		t.Fatalf("stats without a policy: %+v", after.Retention)
	}
}
