package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// Listener wraps ln so that the errors net/http answers on its own, before
// any handler runs, are problem+json like every other error answer of the
// server instead of plain text: 431 for headers over
// http.Server.MaxHeaderBytes, 400 for a malformed request, 501 for an
// unknown transfer encoding. amem serve serves on it.
func Listener(ln net.Listener) net.Listener { return problemListener{ln} }

type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return problemConn{c}, nil
}

type problemConn struct{ net.Conn }

// plainErrorHeaders are what net/http writes between the status line and
// the text of an error it answers itself, in one Write (net/http's
// server.go, conn.serve). A handler's answer never has them so: net/http
// writes its headers sorted, Connection before Content-Type, and a Date.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c problemConn) Write(b []byte) (int, error) {
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
func (c problemConn) CloseWrite() error {
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
