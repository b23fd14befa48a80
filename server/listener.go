package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Listener wraps ln so that the errors net/http answers on its own, before
// any handler runs, are problem+json like every other error answer of the
// server instead of plain text: 431 for headers over
// http.Server.MaxHeaderBytes, 400 for a malformed request, 501 for an
// unknown transfer encoding; and so that it holds at most lim's
// connections open, answering those past it 503 at once (a flood of
// idle or slow connections would otherwise use up the process's file
// descriptors). amem serve serves on it.
func Listener(ln net.Listener, lim ConnLimits) net.Listener {
	return &problemListener{Listener: ln, lim: lim, perAddr: map[string]int{}}
}

// ConnLimits bound the connections a Listener holds open: in all, and
// from one client address (the TCP peer's: behind a reverse proxy every
// client has the proxy's, so raise PerAddr there). Zero or negative: no
// bound.
type ConnLimits struct {
	Total, PerAddr int
}

// Default connection limits: well under the 20,000 descriptors a probe
// needed to stop the server, and far above what one honest client opens.
const (
	DefaultMaxConns        = 4096
	DefaultMaxConnsPerAddr = 256
)

type problemListener struct {
	net.Listener
	lim ConnLimits

	mu      sync.Mutex
	open    int
	perAddr map[string]int
}

func (l *problemListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := peerAddr(c)
		if l.take(addr) {
			return &problemConn{Conn: c, release: func() { l.release(addr) }}, nil
		}
		go refuseConn(c)
	}
}

// take counts a new connection from addr, if the limits allow it.
func (l *problemListener) take(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lim.Total > 0 && l.open >= l.lim.Total || l.lim.PerAddr > 0 && l.perAddr[addr] >= l.lim.PerAddr {
		return false
	}
	l.open++
	l.perAddr[addr]++
	return true
}

func (l *problemListener) release(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.perAddr[addr]--; l.perAddr[addr] <= 0 {
		delete(l.perAddr, addr)
	}
}

func peerAddr(c net.Conn) string {
	if host, _, err := net.SplitHostPort(c.RemoteAddr().String()); err == nil {
		return host
	}
	return c.RemoteAddr().String()
}

// refuseConn answers a connection past the limits 503, without reading
// its request, and closes it.
func refuseConn(c net.Conn) {
	defer c.Close()
	body, _ := json.Marshal(Problem{Type: "about:blank", Title: http.StatusText(http.StatusServiceUnavailable),
		Status: http.StatusServiceUnavailable, Detail: "the server holds as many connections as it allows; retry shortly"})
	_ = c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	_, _ = fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
}

type problemConn struct {
	net.Conn
	release func()
	closed  sync.Once
}

func (c *problemConn) Close() error {
	c.closed.Do(c.release)
	return c.Conn.Close()
}

// plainErrorHeaders are what net/http writes between the status line and
// the text of an error it answers itself, in one Write (net/http's
// server.go, conn.serve). A handler's answer never has them so: net/http
// writes its headers sorted, Connection before Content-Type, and a Date.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *problemConn) Write(b []byte) (int, error) {
	out, ok := problemResponse(b)
	if !ok {
		return c.Conn.Write(b)
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// CloseWrite keeps the half-close net/http makes before it hangs up on a
// client it refused (conn.closeWriteAndWait), which wrapping would hide.
func (c *problemConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// problemResponse rewrites one of net/http's own error answers as
// problem+json; ok is false for anything else.
func problemResponse(b []byte) (out []byte, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1.1 "))
	if !ok {
		return nil, false
	}
	statusLine, text, ok := bytes.Cut(rest, []byte(plainErrorHeaders))
	if !ok || bytes.Contains(statusLine, []byte("\r\n")) || len(statusLine) < 3 {
		return nil, false
	}
	code, err := strconv.Atoi(string(statusLine[:3]))
	if err != nil || code < 400 {
		return nil, false
	}
	body, err := json.Marshal(Problem{Type: "about:blank", Title: http.StatusText(code), Status: code,
		Detail: plainErrorDetail(code, string(text))})
	if err != nil {
		return nil, false
	}
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s", code, http.StatusText(code), len(body), body), true
}

// plainErrorDetail words net/http's text ("431 Request Header Fields Too
// Large", "400 Bad Request: missing required Host header").
func plainErrorDetail(code int, text string) string {
	if code == http.StatusRequestHeaderFieldsTooLarge {
		return "the request's headers are larger than the server accepts"
	}
	text = strings.TrimPrefix(text, strconv.Itoa(code)+" "+http.StatusText(code))
	text = strings.TrimSpace(strings.TrimPrefix(text, ":"))
	if text == "" {
		return "the request is not valid HTTP/1.1"
	}
	return text
}
