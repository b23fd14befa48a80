package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable time for the rate limits.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// retryAfter sends a request and returns its status and Retry-After.
func (e *env) retryAfter(method, path, key string) (int, int) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.url+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return resp.StatusCode, ra
}

// A key past its rate gets 429 with Retry-After; another key is not
// slowed by it; the bucket refills with time.
func TestKeyRateLimit(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}
	e := newEnv(t, Options{KeyRate: 2, Now: c.now}) // bursts of 4
	a, _ := e.key("a")
	b, _ := e.key("b")
	for i := range 4 {
		if st, _ := e.retryAfter("GET", "/v1/namespaces/a/stats", a); st != http.StatusOK {
			t.Fatalf("request %d within the burst: %d", i+1, st)
		}
	}
	st, ra := e.retryAfter("GET", "/v1/namespaces/a/stats", a)
	if st != http.StatusTooManyRequests || ra < 1 {
		t.Fatalf("past the burst: %d, Retry-After %d; want 429 and at least 1 s", st, ra)
	}
	e.must(http.StatusTooManyRequests, "GET", "/v1/namespaces/a/notes", a, nil, nil) // problem+json
	if st, _ := e.retryAfter("GET", "/v1/namespaces/b/stats", b); st != http.StatusOK {
		t.Fatalf("another key: %d", st)
	}
	c.add(time.Second)
	if st, _ := e.retryAfter("GET", "/v1/namespaces/a/stats", a); st != http.StatusOK {
		t.Fatalf("a second later: %d", st)
	}
}

// An address that keeps sending wrong keys is refused with 429 before
// any key is checked, a right key included, until its bucket refills;
// other addresses (here: the proxy header's) are not.
func TestAuthFailuresPerAddress(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}
	// A stand-in for the MCP handler, which checks keys on its own.
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	e := newEnv(t, Options{AuthFailRate: 1, AuthFailBurst: 3, ClientIPHeader: "X-Forwarded-For", Now: c.now, MCP: mcp})
	good, _ := e.key("a")
	for i := range 3 {
		if st, _ := e.retryAfter("GET", "/v1/namespaces/a/stats", "amem_wrong"); st != http.StatusUnauthorized {
			t.Fatalf("bad key %d: %d, want 401", i+1, st)
		}
	}
	st, ra := e.retryAfter("GET", "/v1/namespaces/a/stats", good)
	if st != http.StatusTooManyRequests || ra != 1 {
		t.Fatalf("right key after the burst of wrong ones: %d, Retry-After %d; want 429, 1", st, ra)
	}
	// The MCP endpoint shares the address's bucket.
	req, _ := http.NewRequest("POST", e.url+"/mcp", strings.NewReader("{}"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("/mcp from the refused address: %d", resp.StatusCode)
	}
	// A client behind the trusted proxy with its own address is served.
	req, _ = http.NewRequest("GET", e.url+"/v1/namespaces/a/stats", nil)
	req.Header.Set("Authorization", "Bearer "+good)
	req.Header.Set("X-Forwarded-For", "203.0.113.9, 198.51.100.7")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("another client address: %d", resp.StatusCode)
	}
	c.add(1100 * time.Millisecond)
	if st, _ := e.retryAfter("GET", "/v1/namespaces/a/stats", good); st != http.StatusOK {
		t.Fatalf("after a second: %d", st)
	}
	// Health checks never count against the address.
	if st, _ := e.retryAfter("GET", "/healthz", ""); st != http.StatusOK {
		t.Fatalf("/healthz: %d", st)
	}
}

// A flood of refused requests writes a bounded sample of log lines, the
// next written line counting those left out.
func TestRefusedRequestsLoggedBySample(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}
	var buf bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, nil))
	e := newEnv(t, Options{Logger: log, AuthFailRate: -1, Now: c.now})
	const flood = 300
	for range flood {
		if st, _ := e.retryAfter("GET", "/v1/namespaces/a/stats", "amem_wrong"); st != http.StatusUnauthorized {
			t.Fatalf("bad key: %d", st)
		}
	}
	c.add(time.Second)
	e.retryAfter("GET", "/v1/namespaces/a/stats", "amem_wrong")
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	lines := strings.Count(out, "msg=request")
	if lines > refusalLogBurst+2 {
		t.Fatalf("%d log lines for %d refused requests; want at most %d", lines, flood+1, refusalLogBurst+2)
	}
	i := strings.LastIndex(out, "refusals_not_logged=")
	if i < 0 {
		t.Fatalf("no line counts the refusals left out:\n%s", out)
	}
	n, _ := strconv.Atoi(strings.Fields(out[i+len("refusals_not_logged="):])[0])
	if n+lines != flood+1 {
		t.Fatalf("%d lines + %d left out = %d, want %d", lines, n, n+lines, flood+1)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
