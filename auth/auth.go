// Package auth is amem's API-key authentication: keys are random bearer
// tokens, stored only as their SHA-256 hash, each allowed a set of
// namespaces or all of them (an admin key).
//
// A token is "amem_" followed by 43 characters of base64url: 32 random
// bytes, so a fast hash is enough (there is nothing to brute-force that a
// slow hash would protect), and a lookup by hash is one indexed read.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/amem-dev/amem"
)

// Prefix starts every token, so that a leaked one is easy to recognise
// (secret scanners) and a wrong kind of credential is rejected early.
const Prefix = "amem_"

// Key is a stored API key. The token itself is never stored.
type Key struct {
	// ID names the key in listings, logs and `amem keys revoke`; it is not
	// secret.
	ID         string    `json:"id"`
	Name       string    `json:"name,omitempty"`
	Hash       string    `json:"-"` // hex SHA-256 of the token
	Admin      bool      `json:"admin"`
	Namespaces []string  `json:"namespaces"`
	CreatedAt  time.Time `json:"created_at"`
	// RevokedAt is zero while the key is valid.
	RevokedAt time.Time `json:"revoked_at,omitzero"`
}

// Store keeps API keys. package sqlite implements it.
type Store interface {
	// CreateKey stores a new key; an existing ID is amem.ErrConflict.
	CreateKey(ctx context.Context, k Key) error
	// KeyByHash returns the key with that token hash, revoked or not;
	// amem.ErrNotFound if there is none.
	KeyByHash(ctx context.Context, hash string) (Key, error)
	// Keys lists every key, oldest first.
	Keys(ctx context.Context) ([]Key, error)
	// RevokeKey marks a key revoked at the given time; amem.ErrNotFound if
	// there is no such key. Revoking a revoked key keeps the first time.
	RevokeKey(ctx context.Context, id string, at time.Time) error
}

// Errors of Authenticate. Both mean 401 to a client, which is told
// nothing more: the reason is for the server's log.
var (
	ErrNoToken      = errors.New("no API key")
	ErrInvalidToken = errors.New("invalid API key")
	ErrRevoked      = errors.New("revoked API key")
)

// Principal is who a request acts as: one key and what it may reach.
type Principal struct {
	KeyID      string
	Admin      bool
	Namespaces []string
}

// Allows reports whether the principal may read and write namespace ns.
func (p Principal) Allows(ns string) bool {
	return p.Admin || slices.Contains(p.Namespaces, ns)
}

// Hash returns the stored form of a token.
func Hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Limits on what a key names: every request of a key looks its
// namespaces through (a key of 100,000 made each request 10x slower), and
// its name is printed to terminals (amem keys list).
const (
	MaxKeyNamespaces = 1000
	MaxKeyNameBytes  = 200
)

// NewKey makes a key allowed the given namespaces (or, with admin, all of
// them) and returns it with its token, which is shown once and never
// stored.
func NewKey(name string, admin bool, namespaces []string, now time.Time) (Key, string, error) {
	if !admin && len(namespaces) == 0 {
		return Key{}, "", fmt.Errorf("%w: a key needs at least one namespace, or admin", amem.ErrInvalid)
	}
	if admin && len(namespaces) > 0 {
		return Key{}, "", fmt.Errorf("%w: an admin key reaches every namespace; give no namespaces", amem.ErrInvalid)
	}
	if len(namespaces) > MaxKeyNamespaces {
		return Key{}, "", fmt.Errorf("%w: a key may name at most %d namespaces (it names %d); use an admin key, or several keys", amem.ErrInvalid, MaxKeyNamespaces, len(namespaces))
	}
	if len(name) > MaxKeyNameBytes {
		return Key{}, "", fmt.Errorf("%w: a key's name is %d bytes, at most %d", amem.ErrInvalid, len(name), MaxKeyNameBytes)
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }); i >= 0 {
		return Key{}, "", fmt.Errorf("%w: a key's name has a control character or invalid UTF-8 at byte %d", amem.ErrInvalid, i)
	}
	for _, ns := range namespaces {
		if err := amem.ValidNamespace(ns); err != nil {
			return Key{}, "", err
		}
	}
	var secret [32]byte
	var id [6]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return Key{}, "", err
	}
	if _, err := rand.Read(id[:]); err != nil {
		return Key{}, "", err
	}
	token := Prefix + base64.RawURLEncoding.EncodeToString(secret[:])
	nss := slices.Clone(namespaces)
	slices.Sort(nss)
	nss = slices.Compact(nss)
	if nss == nil {
		nss = []string{}
	}
	return Key{
		ID:         "key_" + hex.EncodeToString(id[:]),
		Name:       name,
		Hash:       Hash(token),
		Admin:      admin,
		Namespaces: nss,
		CreatedAt:  now.UTC(),
	}, token, nil
}

// BearerToken extracts the token of an "Authorization: Bearer TOKEN"
// header value; "" when there is none.
func BearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// Authenticate checks a token against the store.
func Authenticate(ctx context.Context, s Store, token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrNoToken
	}
	if !strings.HasPrefix(token, Prefix) || len(token) > 128 {
		return Principal{}, ErrInvalidToken
	}
	k, err := s.KeyByHash(ctx, Hash(token))
	if errors.Is(err, amem.ErrNotFound) {
		return Principal{}, ErrInvalidToken
	}
	if err != nil {
		return Principal{}, err
	}
	if !k.RevokedAt.IsZero() {
		return Principal{}, ErrRevoked
	}
	return Principal{KeyID: k.ID, Admin: k.Admin, Namespaces: k.Namespaces}, nil
}

type ctxKey struct{}

// NewContext returns ctx carrying the principal.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the principal that NewContext stored.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok
}
