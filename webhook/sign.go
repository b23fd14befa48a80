package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Headers of a delivery.
const (
	// SignatureHeader is "t=UNIX,v1=HEX": HEX is the lowercase hex
	// HMAC-SHA256, keyed by the webhook's secret, of UNIX (the sending
	// time in seconds), a ".", and the body, byte for byte.
	SignatureHeader = "Amem-Signature"
	// EventIDHeader is the delivery's ID, the same on every retry of one
	// event to one webhook: receivers deduplicate by it.
	EventIDHeader = "Amem-Event-Id"
)

// DefaultTolerance is how far Verify lets a signature's time stray from
// now: an older signed request replayed later is refused.
const DefaultTolerance = 5 * time.Minute

// Sign returns the signature header's value for body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret, ts string, body []byte) string {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(ts))
	h.Write([]byte("."))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Errors of Verify.
var (
	ErrBadSignature = errors.New("webhook signature does not match")
	ErrStale        = errors.New("webhook signature time is outside the tolerance")
)

// Verify checks a delivery's signature header against its raw body, as
// a receiver written in Go would: the MAC must match (compared in
// constant time) and its time be within tolerance of now (zero means
// DefaultTolerance). A header with several v1 values (as during a secret
// rotation) passes if any matches.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("%w: malformed header %q", ErrBadSignature, header)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: signed %v from now", ErrStale, d.Round(time.Second))
	}
	want := mac(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return ErrBadSignature
}
