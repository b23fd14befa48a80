package webhook_test

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/amem-dev/amem/webhook"
)

// The signature is an HMAC-SHA256 any language can check: hex of
// HMAC(secret, UNIX + "." + body). In Python:
//
//	hmac.new(secret, ts.encode() + b"." + body, hashlib.sha256).hexdigest()
func ExampleSign() {
	body := []byte(`{"id":"7","kind":"created"}`)
	fmt.Println(webhook.Sign("whsec_test", time.Unix(1767225600, 0), body))
	// Output: t=1767225600,v1=76734b2f2a3fcf2924cc510e60963cbefeccbcf1cb4571dc4c131df231b5d5f9
}

// A receiver checks the signature over the raw body before decoding it,
// answers 2xx once the event is safely handled, and ignores an event ID
// it has seen (delivery is at least once).
func ExampleVerify() {
	secret := "whsec_..." // shown when the webhook was created
	http.HandleFunc("POST /amem", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), body, time.Now(), 0); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		// Decode body as a webhook.Payload, skip r.Header.Get(webhook.EventIDHeader)
		// if already handled, handle it, then:
		w.WriteHeader(http.StatusNoContent)
	})
}
