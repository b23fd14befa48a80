package webhook_test

import (
	"errors"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/webhook"
)

func TestVerify(t *testing.T) {
	const secret = "whsec_0123456789abcdef"
	body := []byte(`{"id":"1","kind":"created"}`)
	at := time.Unix(1_700_000_000, 0)
	sig := webhook.Sign(secret, at, body)
	for _, tc := range []struct {
		name   string
		secret string
		header string
		body   string
		now    time.Time
		want   error
	}{
		{"valid", secret, sig, string(body), at.Add(time.Minute), nil},
		{"rotation: any v1 matches", secret, sig[:len("t=1700000000")] + ",v1=00," + sig[len("t=1700000000,"):], string(body), at, nil},
		{"other secret", "whsec_another-secret", sig, string(body), at, webhook.ErrBadSignature},
		{"body changed", secret, sig, `{"id":"2","kind":"created"}`, at, webhook.ErrBadSignature},
		{"time changed", secret, "t=1700000001" + sig[len("t=1700000000"):], string(body), at, webhook.ErrBadSignature},
		{"replayed later", secret, sig, string(body), at.Add(6 * time.Minute), webhook.ErrStale},
		{"from the future", secret, sig, string(body), at.Add(-6 * time.Minute), webhook.ErrStale},
		{"no time", secret, sig[len("t=1700000000,"):], string(body), at, webhook.ErrBadSignature},
		{"empty", secret, "", string(body), at, webhook.ErrBadSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := webhook.Verify(tc.secret, tc.header, []byte(tc.body), tc.now, 0)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Verify: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name string
		ns   string
		in   webhook.Input
	}{
		{"no url", "alice", webhook.Input{}},
		{"ftp url", "alice", webhook.Input{URL: "ftp://example.com/hook"}},
		{"file url", "alice", webhook.Input{URL: "file:///etc/passwd"}},
		{"no host", "alice", webhook.Input{URL: "http:///path"}},
		{"relative", "alice", webhook.Input{URL: "/hook"}},
		{"short secret", "alice", webhook.Input{URL: "http://x/", Secret: "short"}},
		{"unknown kind", "alice", webhook.Input{URL: "http://x/", Kinds: []amem.EventKind{"renamed"}}},
		{"bad namespace", "a/b", webhook.Input{URL: "http://x/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if h, err := webhook.New(tc.ns, tc.in, now); !errors.Is(err, amem.ErrInvalid) {
				t.Fatalf("New: %+v, %v; want ErrInvalid", h, err)
			}
		})
	}
	h, err := webhook.New("alice", webhook.Input{URL: "https://example.com/hook",
		Kinds: []amem.EventKind{amem.EventDeleted, amem.EventCreated, amem.EventDeleted}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Secret) < webhook.MinSecretBytes || h.ID == "" ||
		len(h.Kinds) != 2 || h.Kinds[0] != amem.EventCreated || h.Kinds[1] != amem.EventDeleted {
		t.Fatalf("New: %+v", h)
	}
	if !h.Takes(amem.EventCreated) || h.Takes(amem.EventEnriched) {
		t.Fatalf("kinds %v take the wrong events", h.Kinds)
	}
}
