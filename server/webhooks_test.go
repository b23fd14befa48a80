package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/webhook"
)

// An admin key creates, lists and deletes a namespace's webhooks; a
// namespace key may do none of it, even for its own namespace; bad input
// is a 400 that creates nothing; the secret is shown only at creation.
// A note added afterwards is queued for the webhook, and only for the
// namespace's.
func TestWebhookManagement(t *testing.T) {
	e := newEnv(t, Options{})
	admin, _ := e.key()
	scoped, _ := e.key("a")

	var created struct {
		ID        string   `json:"id"`
		Namespace string   `json:"namespace"`
		URL       string   `json:"url"`
		Secret    string   `json:"secret"`
		Kinds     []string `json:"kinds"`
	}
	status, _ := e.do("POST", "/v1/namespaces/a/webhooks", admin,
		map[string]any{"url": "https://example.com/hook", "kinds": []string{"deleted", "created"}}, &created)
	if status != http.StatusCreated || !strings.HasPrefix(created.ID, "wh_") || created.Namespace != "a" ||
		len(created.Secret) < webhook.MinSecretBytes || strings.Join(created.Kinds, ",") != "created,deleted" {
		t.Fatalf("created %d %+v", status, created)
	}
	var given struct {
		Secret string `json:"secret"`
	}
	e.must(http.StatusCreated, "POST", "/v1/namespaces/a/webhooks", admin,
		map[string]any{"url": "https://amem:pa55word@hooks.example.com:8443/hook", "secret": "my-own-secret-0123"}, &given)
	if given.Secret != "my-own-secret-0123" {
		t.Fatalf("given secret came back as %q", given.Secret)
	}

	for _, bad := range []any{
		map[string]any{},
		map[string]any{"url": "ftp://example.com/"},
		map[string]any{"url": "javascript:alert(1)"},
		map[string]any{"url": "https://example.com/", "secret": "short"},
		map[string]any{"url": "https://example.com/", "kinds": []string{"renamed"}},
		map[string]any{"url": "https://example.com/", "extra": 1},
		"{",
	} {
		e.must(http.StatusBadRequest, "POST", "/v1/namespaces/a/webhooks", admin, bad, nil)
	}
	var list struct {
		Webhooks []map[string]any `json:"webhooks"`
	}
	e.must(http.StatusOK, "GET", "/v1/namespaces/a/webhooks", admin, nil, &list)
	if len(list.Webhooks) != 2 || list.Webhooks[0]["id"] != created.ID {
		t.Fatalf("listed %+v", list.Webhooks)
	}
	for _, h := range list.Webhooks {
		if _, ok := h["secret"]; ok {
			t.Fatalf("a listing shows a secret: %+v", h)
		}
		if strings.Contains(fmt.Sprint(h["url"]), "pa55word") {
			t.Fatalf("a listing shows a URL's password: %+v", h)
		}
	}
	if u := list.Webhooks[1]["url"]; u != "https://amem:xxxxx@hooks.example.com:8443/hook" {
		t.Fatalf("listed URL %v, want the password redacted", u)
	}
	e.must(http.StatusOK, "GET", "/v1/namespaces/b/webhooks", admin, nil, &list)
	if len(list.Webhooks) != 0 {
		t.Fatalf("namespace b lists %+v", list.Webhooks)
	}

	// Notes of a are queued for its webhook (created, then the
	// enrichment's event, which this webhook does not take); b's are not.
	var note struct {
		ID string `json:"id"`
	}
	e.must(http.StatusCreated, "POST", "/v1/namespaces/a/notes?wait=true", scoped, map[string]any{"content": "tea at noon"}, &note)
	b, _ := e.key("b")
	e.must(http.StatusCreated, "POST", "/v1/namespaces/b/notes?wait=true", b, map[string]any{"content": "coffee at noon"}, nil)
	ds, err := e.store.ClaimEvents(context.Background(), "test", time.Now().Add(time.Minute), time.Now().Add(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	var toCreated []amem.EventKind
	for _, d := range ds {
		if d.Namespace != "a" || d.NoteID != note.ID {
			t.Errorf("queued %+v, want only note %s of a", d, note.ID)
		}
		if d.Hook.ID == created.ID {
			toCreated = append(toCreated, d.Kind)
		}
	}
	if len(toCreated) != 1 || toCreated[0] != amem.EventCreated {
		t.Errorf("queued for the created/deleted webhook: %v, want [created]", toCreated)
	}

	for _, call := range []struct{ method, path string }{
		{"GET", "/v1/namespaces/a/webhooks"}, {"POST", "/v1/namespaces/a/webhooks"},
		{"DELETE", "/v1/namespaces/a/webhooks/" + created.ID},
	} {
		e.must(http.StatusForbidden, call.method, call.path, scoped, map[string]any{"url": "https://example.com/"}, nil)
	}
	e.must(http.StatusUnauthorized, "GET", "/v1/namespaces/a/webhooks", "", nil, nil)
	e.must(http.StatusNotFound, "DELETE", "/v1/namespaces/b/webhooks/"+created.ID, admin, nil, nil)
	e.must(http.StatusNoContent, "DELETE", "/v1/namespaces/a/webhooks/"+created.ID, admin, nil, nil)
	e.must(http.StatusNotFound, "DELETE", "/v1/namespaces/a/webhooks/"+created.ID, admin, nil, nil)
	e.must(http.StatusOK, "GET", "/v1/namespaces/a/webhooks", admin, nil, &list)
	if len(list.Webhooks) != 1 {
		t.Fatalf("after delete: %+v", list.Webhooks)
	}
}

// Without a webhook store the routes say so.
func TestWebhooksNotKept(t *testing.T) {
	e := newEnv(t, Options{})
	e.api.opts.Webhooks = nil // newEnv gives every server its store
	admin, _ := e.key()
	e.must(http.StatusNotImplemented, "GET", "/v1/namespaces/a/webhooks", admin, nil, nil)
}

// A webhook may not point into the server's own networks unless the
// server allows the host or network (amem serve --webhook-allow): the
// refusal names the flag.
func TestWebhookTargets(t *testing.T) {
	e := newEnv(t, Options{})
	admin, _ := e.key()
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/", "http://127.0.0.1:9/hook",
		"http://10.0.0.1/", "http://localhost:7077/", "http://2130706433/", "http://0x7f.1/", "http://[::1]/", "https://example.com:99999/"} {
		status, raw := e.do("POST", "/v1/namespaces/a/webhooks", admin, map[string]any{"url": u}, nil)
		if status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", u, status)
		}
		if strings.HasPrefix(u, "http://127.") && !strings.Contains(string(raw), "--webhook-allow") {
			t.Errorf("%s refused with %s, which does not name --webhook-allow", u, raw)
		}
	}
	allow, err := webhook.ParseTargets([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	e = newEnv(t, Options{WebhookTargets: allow})
	admin, _ = e.key()
	e.must(http.StatusCreated, "POST", "/v1/namespaces/a/webhooks", admin, map[string]any{"url": "http://127.0.0.1:9/hook"}, nil)
	e.must(http.StatusBadRequest, "POST", "/v1/namespaces/a/webhooks", admin, map[string]any{"url": "http://10.0.0.1/"}, nil)
}
