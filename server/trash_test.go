package server

import (
	"bytes"
	"testing"
	"time"

	"github.com/amem-dev/amem/wire"
)

// A delete goes to the trash and back through the API: gone from reads
// and search, listed with its expiry, restored with its history and found
// again; purge is final; and another namespace's key sees none of it.
func TestTrashEndToEnd(t *testing.T) {
	e := newEnv(t, Options{})
	alice, _ := e.key("alice")
	bob, _ := e.key("bob")
	const base = "/v1/namespaces/alice"
	var n wire.Note
	e.must(201, "POST", base+"/notes?wait=true", alice, map[string]any{"content": "the lighthouse keeper retires in June"}, &n)
	e.must(201, "POST", base+"/notes?wait=true", alice, map[string]any{"content": "a cabin in the mountains"}, nil)
	found := func() bool {
		var res wire.ResultList
		e.must(200, "GET", base+"/search?q=lighthouse+keeper&links=false", alice, nil, &res)
		for _, r := range res.Results {
			if r.ID == n.ID {
				return true
			}
		}
		return false
	}
	if !found() {
		t.Fatal("the note is not found before the delete")
	}

	e.must(204, "DELETE", base+"/notes/"+n.ID, alice, nil, nil)
	e.must(404, "GET", base+"/notes/"+n.ID, alice, nil, nil)
	if found() {
		t.Fatal("a trashed note is found by search")
	}
	var page wire.TrashPage
	e.must(200, "GET", base+"/trash", alice, nil, &page)
	if len(page.Notes) != 1 || page.Notes[0].Note.ID != n.ID || page.Next != "" {
		t.Fatalf("trash: %+v", page)
	}
	if got := page.Notes[0].ExpiresAt.Sub(page.Notes[0].DeletedAt); got != 30*24*time.Hour {
		t.Errorf("expires %v after deletion, want 30 days", got)
	}

	// Another namespace's key: refused on alice's trash, and its own
	// trash has no such note.
	for _, c := range []struct{ method, path string }{
		{"GET", base + "/trash"},
		{"DELETE", base + "/trash"},
		{"POST", base + "/trash/" + n.ID + "/restore"},
		{"DELETE", base + "/trash/" + n.ID},
		{"DELETE", base + "/notes/" + n.ID + "?purge=true"},
	} {
		if got, raw := e.do(c.method, c.path, bob, nil, nil); got != 403 || bytes.Contains(raw, []byte("lighthouse")) {
			t.Errorf("bob %s %s: %d %s, want 403 saying nothing", c.method, c.path, got, raw)
		}
	}
	e.must(404, "POST", "/v1/namespaces/bob/trash/"+n.ID+"/restore", bob, nil, nil)
	e.must(404, "DELETE", "/v1/namespaces/bob/trash/"+n.ID, bob, nil, nil)
	var bobs wire.TrashPage
	e.must(200, "GET", "/v1/namespaces/bob/trash", bob, nil, &bobs)
	if len(bobs.Notes) != 0 {
		t.Fatalf("bob's trash: %+v", bobs)
	}

	var back wire.Note
	e.must(200, "POST", base+"/trash/"+n.ID+"/restore", alice, nil, &back)
	if back.ID != n.ID || back.Version != n.Version+1 {
		t.Fatalf("restored %+v, want %s at version %d", back, n.ID, n.Version+1)
	}
	var hist wire.VersionList
	e.must(200, "GET", base+"/notes/"+n.ID+"/history", alice, nil, &hist)
	if len(hist.Versions) != back.Version || hist.Versions[len(hist.Versions)-1].Actor != "restore" {
		t.Fatalf("history after restore: %+v", hist.Versions)
	}
	if !found() {
		t.Fatal("the restored note is not found by search")
	}
	e.must(404, "POST", base+"/trash/"+n.ID+"/restore", alice, nil, nil)

	e.must(400, "DELETE", base+"/notes/"+n.ID+"?purge=yes", alice, nil, nil)
	e.must(204, "DELETE", base+"/notes/"+n.ID+"?purge=true", alice, nil, nil)
	e.must(404, "POST", base+"/trash/"+n.ID+"/restore", alice, nil, nil)
	e.must(404, "DELETE", base+"/notes/"+n.ID+"?purge=true", alice, nil, nil)
	if found() {
		t.Fatal("a purged note is found by search")
	}

	var m wire.Note
	e.must(201, "POST", base+"/notes", alice, map[string]any{"content": "to be emptied"}, &m)
	e.must(204, "DELETE", base+"/notes/"+m.ID, alice, nil, nil)
	var purged wire.Purged
	e.must(200, "DELETE", base+"/trash", alice, nil, &purged)
	if purged.Purged != 1 {
		t.Fatalf("emptied %d, want 1", purged.Purged)
	}
	e.must(404, "DELETE", base+"/trash/"+m.ID, alice, nil, nil)
}
