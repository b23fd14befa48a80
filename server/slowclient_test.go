package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// slowEnv serves MCP as amem serve does, with a body timeout of a second
// and the connection limits given; it returns the listener's address.
func slowEnv(t *testing.T, lim ConnLimits) (*env, string) {
	e, srv := mcpTestServer(t, Options{BodyTimeout: time.Second}, lim)
	return e, srv.Listener.Addr().String()
}

// trickle opens a connection, sends a POST's headers announcing a body of
// 100,000 bytes and then one byte every 200 ms, and returns how long the
// server took to close the connection and the status it answered (0:
// none), giving up after 10 s.
func trickle(t *testing.T, addr, path, key string) (time.Duration, int) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	auth := ""
	if key != "" {
		auth = "Authorization: Bearer " + key + "\r\n"
	}
	start := time.Now()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: 100000\r\n\r\n{", path, auth)
	closed := make(chan int, 1)
	go func() {
		status := 0
		br := bufio.NewReader(c)
		if resp, err := http.ReadResponse(br, nil); err == nil {
			status = resp.StatusCode
			_, _ = io.Copy(io.Discard, resp.Body)
		}
		_, _ = io.Copy(io.Discard, br) // until the server closes
		closed <- status
	}()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case status := <-closed:
			return time.Since(start), status
		case <-tick.C:
			_, _ = c.Write([]byte(" "))
		case <-deadline:
			return time.Since(start), 0
		}
	}
}

// A client that trickles its body holds no connection past the body
// timeout, whatever it asks: without a key (the 401 is written at once
// and the connection closed, not read on), with a valid key (the body's
// deadline ends it) and on /mcp.
func TestSlowBodiesHoldNoConnection(t *testing.T) {
	e, addr := slowEnv(t, ConnLimits{})
	key, _ := e.key("a")
	for _, c := range []struct {
		name, path, key string
		status          int
		within          time.Duration
	}{
		{"no key", "/v1/namespaces/a/notes", "", http.StatusUnauthorized, 500 * time.Millisecond},
		{"wrong key", "/v1/namespaces/a/notes", "amem_wrong", http.StatusUnauthorized, 500 * time.Millisecond},
		{"valid key", "/v1/namespaces/a/notes", key, 0, 4 * time.Second},
		{"mcp without key", "/mcp", "", http.StatusUnauthorized, 500 * time.Millisecond},
		{"mcp with key", "/mcp", key, 0, 4 * time.Second},
	} {
		took, status := trickle(t, addr, c.path, c.key)
		if took > c.within {
			t.Errorf("%s: the connection stayed open %v (status %d), want closed within %v", c.name, took.Round(time.Millisecond), status, c.within)
		}
		if c.status != 0 && status != c.status {
			t.Errorf("%s: status %d, want %d", c.name, status, c.status)
		}
	}
}

// Past the connection limits a new connection gets a 503 problem at once
// and is closed; one closed frees its place.
func TestConnectionLimits(t *testing.T) {
	_, addr := slowEnv(t, ConnLimits{Total: 3, PerAddr: 2})
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	status := func(c net.Conn) int {
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusServiceUnavailable &&
			(resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(body), "connections")) {
			t.Errorf("refusal %s %q is not a problem", resp.Header.Get("Content-Type"), body)
		}
		return resp.StatusCode
	}
	a, b := dial(), dial()
	defer a.Close()
	if s := status(a); s != http.StatusOK {
		t.Fatalf("first connection: %d", s)
	}
	if s := status(b); s != http.StatusOK {
		t.Fatalf("second connection: %d", s)
	}
	third := dial()
	if s := status(third); s != http.StatusServiceUnavailable {
		t.Errorf("a third connection from one address: %d, want 503", s)
	}
	third.Close()
	b.Close()
	// The listener counts b's close once the server has seen it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c := dial()
		s := status(c)
		c.Close()
		if s == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a connection closed, a new one still gets %d", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A body announced larger than the limit gets 413 at once, without the
// "100 Continue" that would ask the client to send it.
func TestHugeBodyRefusedBeforeContinue(t *testing.T) {
	_, addr := slowEnv(t, ConnLimits{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "POST /v1/namespaces/a/notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 10000000000\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413 before any 100 Continue", resp.StatusCode)
	}
}
