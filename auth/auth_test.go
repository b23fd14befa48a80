package auth_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/sqlite"
)

func TestNewKey(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	k, token, err := auth.NewKey("ci", false, []string{"b", "a", "b"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, auth.Prefix) || len(token) != len(auth.Prefix)+43 {
		t.Fatalf("token %q", token)
	}
	if k.Hash != auth.Hash(token) || strings.Contains(k.Hash, token) {
		t.Fatal("the key does not hold the token's hash")
	}
	if strings.Join(k.Namespaces, ",") != "a,b" || k.Admin || !k.CreatedAt.Equal(now) {
		t.Fatalf("key %+v", k)
	}
	_, token2, _ := auth.NewKey("ci", false, []string{"a"}, now)
	if token2 == token {
		t.Fatal("two keys share a token")
	}
	for _, c := range []struct {
		admin bool
		nss   []string
	}{{false, nil}, {true, []string{"a"}}, {false, []string{"bad namespace"}}, {false, []string{".."}}} {
		if _, _, err := auth.NewKey("", c.admin, c.nss, now); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("NewKey(admin=%v, %q): %v, want ErrInvalid", c.admin, c.nss, err)
		}
	}
	// A key names at most MaxKeyNamespaces namespaces, and a name a
	// terminal can show.
	many := make([]string, auth.MaxKeyNamespaces+1)
	for i := range many {
		many[i] = fmt.Sprint("ns", i)
	}
	if _, _, err := auth.NewKey("many", false, many, now); !errors.Is(err, amem.ErrInvalid) {
		t.Errorf("a key for %d namespaces: %v, want ErrInvalid", len(many), err)
	}
	if _, _, err := auth.NewKey("many", false, many[:auth.MaxKeyNamespaces], now); err != nil {
		t.Errorf("a key for %d namespaces: %v", auth.MaxKeyNamespaces, err)
	}
	for _, name := range []string{strings.Repeat("n", auth.MaxKeyNameBytes+1), "evil\x1b[2J", "nul\x00", "bad \xff utf-8"} {
		if _, _, err := auth.NewKey(name, false, []string{"a"}, now); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("NewKey(name %q): %v, want ErrInvalid", name, err)
		}
	}
	if _, _, err := auth.NewKey("Ingest bot — Zoë's", false, []string{"a"}, now); err != nil {
		t.Errorf("a name with non-ASCII letters: %v", err)
	}
}

func TestBearerToken(t *testing.T) {
	for in, want := range map[string]string{
		"Bearer amem_x":   "amem_x",
		"bearer  amem_x ": "amem_x",
		"Basic abc":       "",
		"amem_x":          "",
		"":                "",
	} {
		if got := auth.BearerToken(in); got != want {
			t.Errorf("BearerToken(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "k.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	k, token, _ := auth.NewKey("alice's laptop", false, []string{"alice"}, time.Now())
	if err := st.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateKey(ctx, k); !errors.Is(err, amem.ErrConflict) {
		t.Fatalf("second CreateKey: %v, want ErrConflict", err)
	}
	p, err := auth.Authenticate(ctx, st, token)
	if err != nil || p.KeyID != k.ID || !p.Allows("alice") || p.Allows("bob") {
		t.Fatalf("Authenticate: %+v, %v", p, err)
	}
	for token, want := range map[string]error{
		"":                                auth.ErrNoToken,
		"amem_" + strings.Repeat("A", 43): auth.ErrInvalidToken,
		"sk-something":                    auth.ErrInvalidToken,
	} {
		if _, err := auth.Authenticate(ctx, st, token); !errors.Is(err, want) {
			t.Errorf("Authenticate(%q): %v, want %v", token, err, want)
		}
	}
	if err := st.RevokeKey(ctx, k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Authenticate(ctx, st, token); !errors.Is(err, auth.ErrRevoked) {
		t.Fatalf("revoked key: %v", err)
	}
	if err := st.RevokeKey(ctx, "key_missing", time.Now()); !errors.Is(err, amem.ErrNotFound) {
		t.Fatalf("revoke a missing key: %v", err)
	}
	keys, err := st.Keys(ctx)
	if err != nil || len(keys) != 1 || keys[0].Name != "alice's laptop" || keys[0].RevokedAt.IsZero() {
		t.Fatalf("Keys: %+v, %v", keys, err)
	}
	admin := auth.Principal{Admin: true}
	if !admin.Allows("anything") {
		t.Fatal("admin is refused")
	}
}
