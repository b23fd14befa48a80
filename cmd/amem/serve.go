package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/mcpserver"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/server"
	"github.com/amem-dev/amem/webhook"
)

// version is reported by /healthz and to MCP clients.
const version = "0.1.0"

// newLogger builds the structured logger of long-running commands.
func newLogger(w io.Writer, format string, verbose bool) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if verbose {
		opts.Level = slog.LevelDebug
	}
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usagef("--log-format %q: use text or json", format)
}

func (a *app) serveCmd() *cobra.Command {
	var (
		addr        string
		logFormat   string
		workers     int
		maxBody     int64
		drain       time.Duration
		keyRate     float64
		failRate    float64
		failBurst   int
		ipHeader    string
		hookTimeout time.Duration
		hookAllow   []string
		bodyTimeout time.Duration
		conns       server.ConnLimits
		mcpPerKey   int
	)
	c := &cobra.Command{
		Use:   "serve",
		Short: "serve the HTTP API (REST at /v1, MCP at /mcp) until SIGTERM",
		Long: `serve runs the HTTP JSON API over the database: notes, search, links,
history, enrichment and stats under /v1/namespaces/{ns}/, the MCP server
(streamable HTTP) at /mcp, /openapi.json, /healthz, /readyz and /metrics.
Every /v1 and /mcp request needs an API key ('amem keys create').

A new note is durable and searchable when its request returns; background
workers enrich it (POST ...?wait=true waits). Notes pending when the
process stops are enriched after the next start. Every 10 minutes the
workers also expire the trash and apply namespaces' retention policies
('amem retention'), moving the notes past them to the trash.

Webhooks (POST /v1/namespaces/{ns}/webhooks with an admin key) are sent
from here: each note event is queued in the database with the change
that made it, so a receiver that is down, or a restart, loses none. A
webhook may not point into the server's own networks (loopback, private,
link-local and metadata addresses, checked again on every address
dialled) unless --webhook-allow names the host or network.

On SIGTERM or interrupt the server stops accepting connections, finishes
the requests in flight and the enrichments running, then exits 0.`,
		Example: `  amem keys create --namespace alice > key.txt
  amem serve --addr 127.0.0.1:7077
  curl -H "Authorization: Bearer $(cat key.txt)" -d '{"content":"Alice likes tea"}' \
    http://127.0.0.1:7077/v1/namespaces/alice/notes`,
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			logger, err := newLogger(a.stderr, logFormat, a.Verbose)
			if err != nil {
				return err
			}
			targets, err := webhook.ParseTargets(hookAllow)
			if err != nil {
				return usagef("--webhook-allow: %v", err)
			}
			endTracing, err := setupTracing(a.ctx, os.Getenv, logger)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, endTracing()) }()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			defer ln.Close()
			svc, err := a.openIdle(logger)
			if err != nil {
				return err
			}
			api := server.New(svc.mem, server.Options{
				Keys: svc.store, Logger: logger, MaxBodyBytes: maxBody, Version: version,
				MCP: a.mcpHTTP(svc), KeyRate: keyRate, AuthFailRate: failRate, AuthFailBurst: failBurst,
				ClientIPHeader: ipHeader, Webhooks: svc.store, WebhookTargets: targets, BodyTimeout: bodyTimeout,
				MCPSessionsPerKey: mcpPerKey,
			})
			svc.onEnrich = api.EnrichResult
			svc.start(memory.WorkerOptions{Workers: workers})
			if err := svc.startWebhooks(webhook.Options{Timeout: hookTimeout, Targets: targets}); err != nil {
				return errors.Join(err, svc.Close())
			}
			return a.serveHTTP(server.Listener(ln, conns), &httpService{svc, api}, drain)
		},
	}
	f := c.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:7077", "listen address (host:port; port 0 picks a free one, logged at start)")
	f.StringVar(&logFormat, "log-format", "text", "log format on stderr: text or json")
	f.IntVar(&workers, "workers", 2, "enrichments run in parallel")
	f.DurationVar(&a.claimLease, "claim-lease", 30*time.Second, "how long an enrichment's claim on a note lasts unless renewed: a note claimed by an instance that died waits this long before another takes it over")
	a.trashFlag(f)
	f.IntVar(&a.approximateFrom, "approximate-from", kernel.DefaultApproximateFrom, "notes from which a namespace is searched through an approximate index (built in the background, saved beside a SQLite database or in the user cache directory for PostgreSQL) instead of an exact scan; negative: never")
	f.Int64Var(&maxBody, "max-body", server.DefaultMaxBodyBytes, "largest request body in bytes (413 above)")
	f.DurationVar(&bodyTimeout, "body-timeout", server.DefaultBodyTimeout, "how long a request's body may take to arrive, on every route, /mcp too; then the connection is closed")
	f.IntVar(&mcpPerKey, "mcp-sessions-per-key", server.DefaultMCPSessionsPerKey, "MCP sessions one API key may hold open at once (unused ones close after 10 minutes; negative: no cap)")
	f.IntVar(&conns.Total, "max-conns", server.DefaultMaxConns, "connections held open at most; past it new ones get 503 at once (0 or negative: no limit)")
	f.IntVar(&conns.PerAddr, "max-conns-per-addr", server.DefaultMaxConnsPerAddr, "connections held open at most from one client address (the TCP peer's: raise it behind a reverse proxy; 0 or negative: no limit)")
	f.DurationVar(&drain, "drain-timeout", 30*time.Second, "on shutdown, how long in-flight requests may take to finish")
	f.Float64Var(&keyRate, "key-rate", server.DefaultKeyRate, "requests per second each API key may make, in bursts of twice as many (429 with Retry-After past it; negative: no limit)")
	f.Float64Var(&failRate, "auth-fail-rate", server.DefaultAuthFailRate, "requests with a missing or wrong key per second one client address may make after its burst; past it the address gets 429 until its bucket refills (negative: no limit)")
	f.IntVar(&failBurst, "auth-fail-burst", server.DefaultAuthFailBurst, "requests with a missing or wrong key one client address may make at once")
	f.DurationVar(&hookTimeout, "webhook-timeout", webhook.DefaultTimeout, "how long a webhook's receiver has to answer a delivery before it counts as failed and is retried")
	f.StringSliceVar(&hookAllow, "webhook-allow", nil, "a host name, IP address or CIDR network that webhooks may reach although it is internal (loopback, private, link-local, metadata; refused by default), repeated or comma-separated")
	f.StringVar(&ipHeader, "client-ip-header", "", "header a trusted reverse proxy sets to the client's address, e.g. X-Forwarded-For (its last entry is used); default: the connection's address")
	return c
}

type httpService struct {
	*service
	api *server.Server
}

// serveHTTP serves until a.ctx is cancelled, then drains.
func (a *app) serveHTTP(ln net.Listener, hs *httpService, drain time.Duration) error {
	srv := &http.Server{
		Handler:           hs.api,
		ReadHeaderTimeout: 10 * time.Second,
		// No ReadTimeout or WriteTimeout: either would cut MCP event
		// streams, which stay open by design. The API bounds each request
		// itself (server.Options.Timeout, and a deadline to read the body).
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(hs.logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	// ln is a server.Listener: net/http's own error answers (431 and the
	// like) are problem+json too, and connections past the limits get 503.
	go func() { served <- srv.Serve(ln) }()
	hs.logger.Info("serving", "addr", "http://"+ln.Addr().String(), "version", version,
		"ui", "http://"+ln.Addr().String()+"/ui/")

	var err error
	select {
	case err = <-served:
		err = fmt.Errorf("serve: %w", err)
	case <-a.ctx.Done():
		hs.logger.Info("shutting down: draining requests and enrichments")
		hs.api.Drain()
		ctx, cancel := context.WithTimeout(context.Background(), drain)
		if serr := srv.Shutdown(ctx); serr != nil {
			hs.logger.Warn("drain timed out; closing the remaining connections", "err", serr)
			_ = srv.Close()
		}
		cancel()
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
			err = serr
		}
	}
	if cerr := hs.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		hs.logger.Info("stopped")
	}
	return err
}

// mcpHTTP is the MCP handler mounted at /mcp, behind the same keys.
func (a *app) mcpHTTP(svc *service) http.Handler {
	return mcpserver.HTTPHandler(svc.mem, svc.store, mcpserver.Options{
		DefaultNamespace: a.ns(), Version: version, Logger: svc.logger,
	})
}
