// Package server is amem's HTTP JSON API: every library operation under
// /v1/namespaces/{ns}/..., behind API keys (package auth), with
// problem+json errors, an OpenAPI document, health checks and Prometheus
// metrics. An MCP handler can be mounted beside it at /mcp, and the web UI
// (package ui), a client of this API, is served at /ui/.
//
// Namespaces are the security boundary: a key reaches only its own, and a
// request for another gets the same 403 whether that namespace exists or
// not.
package server

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/internal/repeatlog"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/ui"
	"github.com/amem-dev/amem/webhook"
)

// Options configure a Server. Zero fields mean the defaults.
type Options struct {
	// Keys authenticates requests. Required.
	Keys auth.Store
	// Logger receives one line per request and the errors behind 5xx
	// responses (default slog.Default()). Tokens are never logged.
	Logger *slog.Logger
	// MaxBodyBytes bounds a request body (default 8 MiB: a batch of 1,000
	// notes of typical length). Larger bodies get 413.
	MaxBodyBytes int64
	// Timeout bounds each API request (default 2 minutes: a request that
	// waits for an LLM enrichment can take that long).
	Timeout time.Duration
	// BodyTimeout is how long a request's body, on any route, /mcp too,
	// may take to arrive from the request's start (default
	// DefaultBodyTimeout); then the connection is closed (bodyguard.go).
	BodyTimeout time.Duration
	// MCP, if set, is served at /mcp, under the key checks and rate
	// limit of the API (mcpgate.go); it authenticates on its own too.
	MCP http.Handler
	// MCPSessionsPerKey caps the MCP sessions one key holds open
	// (default DefaultMCPSessionsPerKey; negative: no cap); MCPIdle is
	// how long an unused session counts (default mcpserver's
	// SessionTimeout, after which MCP's handler closes it).
	MCPSessionsPerKey int
	MCPIdle           time.Duration
	// Registerer receives the metrics, which /metrics serves from
	// Gatherer. Default: a fresh registry for both, with the Go and
	// process collectors.
	Registerer prometheus.Registerer
	Gatherer   prometheus.Gatherer
	// Version is reported by /healthz.
	Version string
	// KeyRate is the requests per second each API key may make, in bursts
	// of twice as many (default DefaultKeyRate; negative: no limit).
	// Past it a request gets 429 with Retry-After.
	KeyRate float64
	// AuthFailRate and AuthFailBurst bound the requests with a missing or
	// wrong key from one client address (defaults DefaultAuthFailRate,
	// DefaultAuthFailBurst; a negative rate: no limit). Past them the
	// address's requests get 429 with Retry-After, unchecked, until its
	// bucket refills.
	AuthFailRate  float64
	AuthFailBurst int
	// ClientIPHeader names a header a trusted reverse proxy sets to the
	// client's address (X-Forwarded-For, say; its last entry is used).
	// Empty: the TCP peer's address, which behind a proxy is the proxy's
	// for every client.
	ClientIPHeader string
	// Now is the clock of the rate limits (default time.Now).
	Now func() time.Time
	// TracerProvider makes a span per API request (tracing.go); nil
	// means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// Webhooks keeps the namespaces' webhooks, managed under
	// /v1/namespaces/{ns}/webhooks with an admin key; nil: those routes
	// answer 501. Delivery is package webhook's Worker, run beside.
	Webhooks webhook.Store
	// WebhookTargets is where a webhook may point: by default no address
	// of the server's own networks (package webhook's Targets); the same
	// policy the delivery worker applies when it dials.
	WebhookTargets webhook.Targets
}

// Default limits.
const (
	DefaultMaxBodyBytes = 8 << 20
	DefaultTimeout      = 2 * time.Minute
	// DefaultBodyTimeout lets the largest body (8 MiB) arrive at 280
	// KB/s; a client slower than that sends smaller batches.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultMCPSessionsPerKey is far more than an agent needs (one
	// session per connection it keeps) and a bound on what a key costs:
	// each session holds a goroutine and about 50 KB.
	DefaultMCPSessionsPerKey = 64
)

// Server is the HTTP API. It is an http.Handler.
type Server struct {
	mem      *memory.Memory
	opts     Options
	log      *slog.Logger
	mux      *http.ServeMux
	metrics  *metrics
	draining atomic.Bool
	// streams is cancelled by Drain: it ends MCP's long-lived event
	// streams, which would otherwise hold a graceful shutdown open.
	streams    context.Context
	endStreams context.CancelFunc

	keyLimits, authFails *limiters // nil: no limit
	mcpSessions          *mcpSessions
	refusals             *refusalLog
	// storeDown logs the store's being unavailable once when it starts,
	// once a minute while it lasts and when readiness sees it end: a load
	// balancer's probe and every request would otherwise each log a line.
	storeDown *repeatlog.Log
}

func (s *Server) now() time.Time { return s.opts.Now() }

// New returns the API over mem.
func New(mem *memory.Memory, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.MCPSessionsPerKey == 0 {
		opts.MCPSessionsPerKey = DefaultMCPSessionsPerKey
	}
	if opts.MCPIdle <= 0 {
		opts.MCPIdle = mcpserver.SessionTimeout
	}
	if opts.KeyRate == 0 {
		opts.KeyRate = DefaultKeyRate
	}
	if opts.AuthFailRate == 0 {
		opts.AuthFailRate = DefaultAuthFailRate
	}
	if opts.AuthFailBurst <= 0 {
		opts.AuthFailBurst = DefaultAuthFailBurst
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{mem: mem, opts: opts, log: opts.Logger, mux: http.NewServeMux(),
		keyLimits:   newLimiters(opts.KeyRate, int(math.Ceil(2*opts.KeyRate))),
		authFails:   newLimiters(opts.AuthFailRate, opts.AuthFailBurst),
		refusals:    newRefusalLog(),
		mcpSessions: newMCPSessions(opts.MCPSessionsPerKey, opts.MCPIdle),
		storeDown:   &repeatlog.Log{Logger: opts.Logger, Msg: "store unavailable"},
	}
	s.streams, s.endStreams = context.WithCancel(context.Background())
	s.metrics = newMetrics(mem, opts.Registerer, opts.Gatherer)
	for _, r := range s.routes() {
		s.mux.Handle(r.pattern(), s.instrument(r))
	}
	if opts.MCP != nil {
		s.mux.Handle("/mcp", s.guardAuthFailures(s.mcpGate(s.endOnDrain(plainErrors(opts.MCP)))))
	}
	s.mux.Handle("GET /ui/", ui.Handler("/ui"))
	s.mux.Handle("GET /ui", http.RedirectHandler("/ui/", http.StatusMovedPermanently))
	// A person who types the server's address gets the UI; the API's
	// other unknown paths stay problem+json 404s.
	s.mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusFound))
	s.mux.HandleFunc("/", s.noRoute)
	s.hintSignIn()
	return s
}

// SignInHint is logged at start when no API key can sign in: a server
// on a new database is otherwise a sign-in page nobody can pass.
const SignInHint = "no API key can sign in yet: create one with 'amem keys create --namespace NS' " +
	"(or --admin for every namespace; the same --db as amem serve), then open the web UI at /ui/ and paste it"

// hintSignIn logs SignInHint if the key store holds no valid key. A
// store that can't be read says so on the first request instead.
func (s *Server) hintSignIn() {
	if s.opts.Keys == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	keys, err := s.opts.Keys.Keys(ctx)
	if err != nil {
		return
	}
	for _, k := range keys {
		if k.RevokedAt.IsZero() {
			return
		}
	}
	s.log.Warn(SignInHint)
}

// noRoute answers what no route matched: 405 with the Allow header when
// the path exists with other methods, else 404. (The catch-all "/" keeps
// ServeMux from answering 405 in plain text on its own.)
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		problem(w, r, http.StatusMethodNotAllowed, "%s is not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allow, ", "))
		return
	}
	problem(w, r, http.StatusNotFound, "no such route: %s %s (see /openapi.json)", r.Method, r.URL.Path)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > s.opts.MaxBodyBytes {
		// Answered before any read, so that a client that asked
		// "Expect: 100-continue" is not told to send 10 GB first.
		w.Header().Set("Connection", "close")
		problem(w, r, http.StatusRequestEntityTooLarge, "request body over %d bytes: it has %d, which exceeds the limit", s.opts.MaxBodyBytes, r.ContentLength)
		return
	}
	w, r = s.guardBody(w, r)
	// ServeMux would answer a path with empty, . or .. segments with a
	// plain-text redirect to the cleaned path. No route is written so.
	if p := r.URL.EscapedPath(); r.Method != http.MethodConnect && p != canonicalPath(p) {
		problem(w, r, http.StatusNotFound, "no such route: %s %s; paths have no empty, . or .. segments (did you mean %s?)",
			r.Method, r.URL.Path, canonicalPath(r.URL.Path))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Drain makes /readyz fail, so a load balancer stops sending new requests
// while http.Server.Shutdown finishes the ones in flight, and ends MCP
// event streams (they never finish on their own).
func (s *Server) Drain() {
	s.draining.Store(true)
	s.endStreams()
}

// endOnDrain cuts h's GET requests, MCP's server-to-client event streams,
// when Drain is called. POSTs (tool calls) are left to finish.
func (s *Server) endOnDrain(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			defer context.AfterFunc(s.streams, cancel)()
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}

// EnrichResult counts an enrichment in the metrics; the Memory's
// memory.Options.Enrich.OnEnrich must call it.
func (s *Server) EnrichResult(n amem.Note, err error) { s.metrics.enriched(n, err) }

// route is one API operation. Every route is listed here, and the OpenAPI
// document is checked against this list.
type route struct {
	method, path string
	// public routes need no key.
	public bool
	// query names the query parameters the route takes once, repeated
	// those it takes any number of times. Any other is refused, so that a
	// misspelt filter can't widen a search without a word.
	query, repeated []string
	h               func(w http.ResponseWriter, r *http.Request, p auth.Principal)
}

func (r route) pattern() string { return r.method + " " + r.path }

// refuseQuery answers 400 and returns true if the request's query string
// is not one the route takes.
func (r route) refuseQuery(w http.ResponseWriter, req *http.Request) bool {
	if msg := r.queryProblem(req); msg != "" {
		problem(w, req, http.StatusBadRequest, "%s", msg)
		return true
	}
	return false
}

// queryProblem says what is wrong with the request's query string for
// this route, or "".
func (r route) queryProblem(req *http.Request) string {
	q, err := url.ParseQuery(req.URL.RawQuery)
	if err != nil {
		return fmt.Sprintf("the query string is malformed: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		switch {
		case slices.Contains(r.repeated, name):
		case slices.Contains(r.query, name):
			if n := len(q[name]); n > 1 {
				return fmt.Sprintf("query parameter %q is given %d times; give it once", name, n)
			}
		case len(r.query)+len(r.repeated) == 0:
			return fmt.Sprintf("unknown query parameter %q: %s takes none", name, r.pattern())
		default:
			return fmt.Sprintf("unknown query parameter %q: %s takes %s", name, r.pattern(),
				strings.Join(append(slices.Clone(r.query), r.repeated...), ", "))
		}
	}
	return ""
}

func (s *Server) routes() []route {
	const ns = "/v1/namespaces/{ns}"
	return []route{
		{method: "GET", path: "/healthz", public: true, h: s.healthz},
		{method: "GET", path: "/readyz", public: true, h: s.readyz},
		{method: "GET", path: "/metrics", public: true, h: s.serveMetrics},
		{method: "GET", path: "/openapi.json", public: true, h: serveOpenAPI},
		{method: "GET", path: "/v1/key", h: s.key},
		{method: "GET", path: "/v1/keys", h: s.listKeys},
		{method: "POST", path: "/v1/keys", h: s.createKey},
		{method: "DELETE", path: "/v1/keys/{id}", h: s.revokeKey},
		{method: "GET", path: "/v1/namespaces", h: s.listNamespaces},
		{method: "GET", path: ns + "/stats", h: s.stats},
		{method: "GET", path: ns + "/retention", h: s.getRetention},
		{method: "PUT", path: ns + "/retention", h: s.putRetention},
		{method: "POST", path: ns + "/notes", query: []string{"wait"}, h: s.createNote},
		{method: "POST", path: ns + "/notes/batch", query: []string{"wait"}, h: s.createNotes},
		{method: "GET", path: ns + "/notes", query: []string{"after", "limit", "state", "order", "from", "to", "tag_source"},
			repeated: []string{"tag", "meta"}, h: s.listNotes},
		{method: "GET", path: ns + "/notes/{id}", h: s.getNote},
		{method: "PATCH", path: ns + "/notes/{id}", h: s.updateNote},
		{method: "DELETE", path: ns + "/notes/{id}", query: []string{"purge"}, h: s.deleteNote},
		{method: "GET", path: ns + "/notes/{id}/links", h: s.noteLinks},
		{method: "GET", path: ns + "/notes/{id}/history", h: s.noteHistory},
		{method: "GET", path: ns + "/notes/{id}/usage", h: s.noteUsage},
		{method: "POST", path: ns + "/notes/{id}/restore", h: s.restoreNote},
		{method: "POST", path: ns + "/notes/{id}/enrich", h: s.enrichNote},
		{method: "GET", path: ns + "/links", query: []string{"after", "limit"}, h: s.listLinks},
		{method: "GET", path: ns + "/search", query: []string{"q", "k", "mode", "profile", "min_score", "links", "from", "to", "tag_source", "as_of", "exclude_superseded"},
			repeated: []string{"tag", "meta"}, h: s.search},
		{method: "GET", path: ns + "/trash", query: []string{"after", "limit"}, h: s.listTrash},
		{method: "DELETE", path: ns + "/trash", h: s.emptyTrash},
		{method: "POST", path: ns + "/trash/{id}/restore", h: s.restoreTrashed},
		{method: "DELETE", path: ns + "/trash/{id}", h: s.purgeTrashed},
		{method: "GET", path: ns + "/webhooks", h: s.listWebhooks},
		{method: "POST", path: ns + "/webhooks", h: s.createWebhook},
		{method: "DELETE", path: ns + "/webhooks/{id}", h: s.deleteWebhook},
	}
}

// instrument wraps a route with authentication, authorisation of the
// {ns} path value, the request timeout, metrics and the access log.
func (s *Server) instrument(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		r, span := s.startSpan(r, rt)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		defer func() { endSpan(span, rec.status) }()
		var keyID string
		if rt.public {
			keyID = s.serve(rec, r, rt)
		} else {
			s.guardAuthFailures(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				keyID = s.serve(w, r, rt)
			})).ServeHTTP(rec, r)
		}
		elapsed := time.Since(start)
		s.metrics.observe(rt.pattern(), rec.status, elapsed)
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.status,
			"duration_ms", float64(elapsed.Microseconds()) / 1000}
		if keyID != "" {
			attrs = append(attrs, "key", keyID)
		}
		if refused(rec.status) {
			ok, dropped := s.refusals.admit(s.now())
			if !ok {
				return
			}
			if dropped > 0 {
				attrs = append(attrs, "refusals_not_logged", dropped)
			}
		}
		s.log.Info("request", attrs...)
	})
}

// serve runs the route's handler for an allowed request and returns the
// ID of the key used, for the log.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, rt route) string {
	if rt.public {
		if rt.refuseQuery(w, r) {
			return ""
		}
		rt.h(w, r, auth.Principal{})
		return ""
	}
	p, err := auth.Authenticate(r.Context(), s.opts.Keys, auth.BearerToken(r.Header.Get("Authorization")))
	if err != nil {
		if isAuthError(err) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="amem"`)
			problem(w, r, http.StatusUnauthorized, unauthorized)
			return ""
		}
		s.fail(w, r, err) // a store that can't be reached is a 503
		return ""
	}
	if ok, wait := s.keyLimits.take(p.KeyID, s.now()); !ok {
		tooMany(w, r, wait, "this API key is over its rate limit")
		return p.KeyID
	}
	if ns := r.PathValue("ns"); ns != "" {
		if err := amem.ValidNamespace(ns); err != nil {
			problem(w, r, http.StatusBadRequest, "%v", err)
			return p.KeyID
		}
		if !p.Allows(ns) {
			problem(w, r, http.StatusForbidden, "this API key may not access namespace %q", ns)
			return p.KeyID
		}
	}
	if rt.refuseQuery(w, r) {
		return p.KeyID
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.Timeout)
	defer cancel()
	// The body's deadline was set when the request came in (guardBody).
	r = r.WithContext(auth.NewContext(ctx, p))
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	rt.h(w, r, p)
	return p.KeyID
}

// unauthorized is the whole answer to a request without a valid key.
const unauthorized = "a valid API key is required: Authorization: Bearer KEY"

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush passes flushes on: MCP's event streams need them, and some
// handlers look for http.Flusher on the writer itself.
func (r *statusRecorder) Flush() { _ = http.NewResponseController(r.ResponseWriter).Flush() }
