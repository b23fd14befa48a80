package server

import (
	"net/http"
	"testing"
)

// An admin key creates, lists and revokes keys over HTTP; a namespace key
// may do none of it; a new key works at once and a revoked one at its
// next request no more; bad input is a 400 that creates nothing.
func TestKeyManagement(t *testing.T) {
	e := newEnv(t, Options{})
	admin, _ := e.key()
	scoped, _ := e.key("a")

	var created struct {
		Token      string   `json:"token"`
		ID         string   `json:"id"`
		Admin      bool     `json:"admin"`
		Namespaces []string `json:"namespaces"`
	}
	e.must(http.StatusCreated, "POST", "/v1/keys", admin, map[string]any{"name": "agent", "namespaces": []string{"b", "b"}}, &created)
	if created.Token == "" || created.ID == "" || created.Admin || len(created.Namespaces) != 1 || created.Namespaces[0] != "b" {
		t.Fatalf("created %+v", created)
	}
	e.must(http.StatusOK, "GET", "/v1/namespaces/b/stats", created.Token, nil, nil)
	e.must(http.StatusForbidden, "GET", "/v1/namespaces/a/stats", created.Token, nil, nil)

	var list struct {
		Keys []struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			RevokedAt string `json:"revoked_at"`
			Token     string `json:"token"`
		} `json:"keys"`
	}
	e.must(http.StatusOK, "GET", "/v1/keys", admin, nil, &list)
	if len(list.Keys) != 3 || list.Keys[2].ID != created.ID || list.Keys[2].Name != "agent" || list.Keys[2].Token != "" {
		t.Fatalf("listed %+v", list.Keys)
	}

	for _, bad := range []any{
		map[string]any{}, // no namespace, not admin
		map[string]any{"admin": true, "namespaces": []string{"a"}},  // both
		map[string]any{"namespaces": []string{"no spaces allowed"}}, // invalid namespace
		map[string]any{"namespaces": []string{"a"}, "extra": 1},     // unknown field
		"{",
	} {
		e.must(http.StatusBadRequest, "POST", "/v1/keys", admin, bad, nil)
	}
	e.must(http.StatusOK, "GET", "/v1/keys", admin, nil, &list)
	if len(list.Keys) != 3 {
		t.Fatalf("bad input created keys: %d", len(list.Keys))
	}

	for _, call := range []struct{ method, path string }{
		{"GET", "/v1/keys"}, {"POST", "/v1/keys"}, {"DELETE", "/v1/keys/" + created.ID},
	} {
		e.must(http.StatusForbidden, call.method, call.path, scoped, map[string]any{"namespaces": []string{"a"}}, nil)
	}
	e.must(http.StatusUnauthorized, "GET", "/v1/keys", "", nil, nil)

	e.must(http.StatusNoContent, "DELETE", "/v1/keys/"+created.ID, admin, nil, nil)
	e.must(http.StatusUnauthorized, "GET", "/v1/namespaces/b/stats", created.Token, nil, nil)
	e.must(http.StatusNotFound, "DELETE", "/v1/keys/key_000000000000", admin, nil, nil)
	e.must(http.StatusOK, "GET", "/v1/keys", admin, nil, &list)
	if list.Keys[2].RevokedAt == "" {
		t.Fatalf("revoked key listed as valid: %+v", list.Keys[2])
	}
}
