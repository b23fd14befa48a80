package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// BenchmarkCreateNote measures POST .../notes through the handler (key
// check, decoding, a durable insert, encoding), without the network.
// Enrichment runs in the background workers, as in amem serve.
func BenchmarkCreateNote(b *testing.B) {
	e := newEnv(b, Options{})
	key, _ := e.key("bench")
	b.ResetTimer()
	for i := range b.N {
		body := fmt.Sprintf(`{"content": "benchmark note %d about gardening and tomatoes"}`, i)
		serveOnce(b, e.api, "POST", "/v1/namespaces/bench/notes", key, body, http.StatusCreated)
	}
}

// BenchmarkSearch measures GET .../search over 1,000 notes (hybrid, with
// linked notes) through the handler.
func BenchmarkSearch(b *testing.B) {
	e := newEnv(b, Options{})
	key, _ := e.key("bench")
	notes := make([]string, 1000)
	for i := range notes {
		notes[i] = fmt.Sprintf(`{"content": "note %d about topic %d and subject %d"}`, i, i%37, i%11)
	}
	serveOnce(b, e.api, "POST", "/v1/namespaces/bench/notes/batch", key, `{"notes": [`+strings.Join(notes, ",")+`]}`, http.StatusCreated)
	// Time searches alone, not the workers enriching the batch.
	eventually(b, func() bool {
		st, err := e.mem.Stats(context.Background(), "bench")
		return err == nil && st[0].ByState[amem.EnrichDone] == len(notes)
	})
	b.ResetTimer()
	for i := range b.N {
		serveOnce(b, e.api, "GET", fmt.Sprintf("/v1/namespaces/bench/search?q=topic+%d&k=10", i%37), key, "", http.StatusOK)
	}
}

// BenchmarkRefusedRequest is the cost of a request with a wrong key: one
// hash and one indexed read.
// BenchmarkRefusedRequest: a wrong key checked (hash and one indexed
// read), with the per-address limit off; and, with it on, a request from
// an address past its burst of wrong keys, refused before any lookup.
func BenchmarkRefusedRequest(b *testing.B) {
	bad := "amem_" + strings.Repeat("x", 43)
	const path = "/v1/namespaces/bench/search?q=x"
	b.Run("key-checked", func(b *testing.B) {
		e := newEnv(b, Options{AuthFailRate: -1})
		for b.Loop() {
			serveOnce(b, e.api, "GET", path, bad, "", http.StatusUnauthorized)
		}
	})
	b.Run("address-limited", func(b *testing.B) {
		// A stopped clock: the bucket never refills while it runs.
		stopped := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
		e := newEnv(b, Options{Now: func() time.Time { return stopped }})
		for range DefaultAuthFailBurst {
			serveOnce(b, e.api, "GET", path, bad, "", http.StatusUnauthorized)
		}
		for b.Loop() {
			serveOnce(b, e.api, "GET", path, bad, "", http.StatusTooManyRequests)
		}
	})
}

func serveOnce(b *testing.B, h http.Handler, method, path, key, body string, want int) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: %d, want %d: %s", method, path, rec.Code, want, rec.Body)
	}
}
