package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/amem-dev/amem"
)

// Hook is one webhook: where a namespace's events go.
type Hook struct {
	ID        string `json:"id"`
	Namespace string `json:"namespace"`
	URL       string `json:"url"`
	// Secret signs each delivery (Sign). It is stored as given, since
	// signing needs it, and is shown only when the webhook is created.
	Secret string `json:"-"`
	// Kinds are the events it takes; empty means every kind.
	Kinds     []amem.EventKind `json:"kinds"`
	CreatedAt time.Time        `json:"created_at"`
}

// Takes reports whether h receives events of kind k.
func (h Hook) Takes(k amem.EventKind) bool {
	return len(h.Kinds) == 0 || slices.Contains(h.Kinds, k)
}

// Status is a webhook with its delivery counts, for listings.
type Status struct {
	Hook
	// Pending counts events waiting to be delivered (first tries and
	// retries); Failed those given up after MaxAge.
	Pending int `json:"pending"`
	Failed  int `json:"failed"`
	// Delivered counts events a receiver acknowledged.
	Delivered       int       `json:"delivered"`
	LastDeliveredAt time.Time `json:"last_delivered_at,omitzero"`
	// LastError is the last failed attempt's cause, at LastErrorAt.
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
}

// Delivery is one event for one webhook, as the outbox holds it.
type Delivery struct {
	// ID is unique and never reused: receivers deduplicate by it.
	ID int64
	amem.Event
	// Attempts counts the failed attempts so far.
	Attempts int
	Hook     Hook
}

// Store keeps webhooks and their outbox. Package sqlite and package
// postgres implement it; the outbox is written by amem.EventRecorder.
type Store interface {
	// CreateWebhook stores a new webhook; an existing ID is
	// amem.ErrConflict.
	CreateWebhook(ctx context.Context, h Hook) error
	// Webhooks lists a namespace's webhooks, oldest first, with their
	// counts.
	Webhooks(ctx context.Context, ns string) ([]Status, error)
	// DeleteWebhook removes a webhook and its queued and failed events;
	// amem.ErrNotFound if the namespace has no such webhook.
	DeleteWebhook(ctx context.Context, ns, id string) error

	// ClaimEvents leases, for owner until until, up to limit events
	// due at now (their next attempt is due and no live lease holds
	// them) that no earlier event of the same webhook and note is
	// waiting before, oldest first.
	ClaimEvents(ctx context.Context, owner string, now, until time.Time, limit int) ([]Delivery, error)
	// Finish records, in one transaction, what became of events owner
	// holds (a round's outcomes: one transaction for the round, not one
	// per event, which on SQLite's one writer capped delivery at about
	// 110 events a second). An event whose lease was lost is ignored: its
	// new holder decides.
	Finish(ctx context.Context, owner string, outs []Outcome) error
}

// Outcome is what became of one event of a round.
type Outcome struct {
	ID int64
	// At is when it was decided.
	At time.Time
	// Delivered: the event is removed, counted on its webhook at At, and
	// the webhook's other waiting events are due at At (the receiver is
	// back, so what waits for it need not wait out its backoff).
	Delivered bool
	// Otherwise the event is released with Attempts so far and its next
	// attempt at Next, or, with a zero Next, kept as failed; Cause (empty
	// when the event was not tried) is recorded on the webhook at At.
	Attempts int
	Next     time.Time
	Cause    string
}

// Input is what a client gives to create a webhook.
type Input struct {
	URL string `json:"url"`
	// Secret, when empty, is generated.
	Secret string           `json:"secret"`
	Kinds  []amem.EventKind `json:"kinds"`
}

// Limits of a webhook's input.
const (
	MaxURLBytes     = 2048
	MinSecretBytes  = 16
	MaxSecretBytes  = 256
	secretPrefix    = "whsec_"
	generatedSecret = 32 // random bytes
)

// New checks in and returns the webhook it describes for namespace ns,
// with a new ID and, unless given, a new secret. Bad input is
// amem.ErrInvalid naming what is wrong.
func New(ns string, in Input, now time.Time) (Hook, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return Hook{}, err
	}
	if err := validURL(in.URL); err != nil {
		return Hook{}, err
	}
	secret := in.Secret
	switch {
	case secret == "":
		b, err := randomHex(generatedSecret)
		if err != nil {
			return Hook{}, err
		}
		secret = secretPrefix + b
	case len(secret) < MinSecretBytes || len(secret) > MaxSecretBytes:
		return Hook{}, fmt.Errorf("%w: secret has %d bytes; give %d to %d, or none to have one generated",
			amem.ErrInvalid, len(secret), MinSecretBytes, MaxSecretBytes)
	case strings.IndexFunc(secret, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0:
		// Printable ASCII only: a NUL was kept by SQLite and refused by
		// PostgreSQL, and receivers type the secret into their config.
		return Hook{}, fmt.Errorf("%w: secret has a character other than printable ASCII (no spaces)", amem.ErrInvalid)
	}
	kinds, err := validKinds(in.Kinds)
	if err != nil {
		return Hook{}, err
	}
	id, err := randomHex(6)
	if err != nil {
		return Hook{}, err
	}
	return Hook{ID: "wh_" + id, Namespace: ns, URL: in.URL, Secret: secret, Kinds: kinds,
		CreatedAt: now.UTC().Truncate(time.Microsecond)}, nil
}

func validURL(raw string) error {
	if raw == "" {
		return fmt.Errorf("%w: url is empty", amem.ErrInvalid)
	}
	if len(raw) > MaxURLBytes {
		return fmt.Errorf("%w: url has %d bytes, at most %d", amem.ErrInvalid, len(raw), MaxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: url: %v", amem.ErrInvalid, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: url %q: give an http:// or https:// URL", amem.ErrInvalid, raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%w: url %q has no host", amem.ErrInvalid, raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%w: url %q: port %s is not 1 to 65535", amem.ErrInvalid, u.Redacted(), p)
		}
	}
	return nil
}

// Redacted is the hook with the password of its URL, if any, replaced by
// "xxxxx", as a listing shows it.
func (h Hook) Redacted() Hook {
	if u, err := url.Parse(h.URL); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			h.URL = u.Redacted()
		}
	}
	return h
}

// validKinds returns kinds sorted in amem.EventKinds order, without
// repeats; never nil.
func validKinds(kinds []amem.EventKind) ([]amem.EventKind, error) {
	out := []amem.EventKind{}
	for _, k := range amem.EventKinds {
		if slices.Contains(kinds, k) {
			out = append(out, k)
		}
	}
	for _, k := range kinds {
		if !slices.Contains(amem.EventKinds, k) {
			return nil, fmt.Errorf("%w: unknown event kind %q; kinds are %v", amem.ErrInvalid, k, amem.EventKinds)
		}
	}
	return out, nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
