package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/memory"
)

// SessionTimeout closes streamable sessions idle this long: a client that
// goes away without ending its session would otherwise hold it (a
// goroutine and about 50 KB) forever. A client that comes back later is
// told its session is gone and starts a new one, as the protocol asks.
// Ten minutes, not an hour: a key could hold 3,000 sessions an hour.
const SessionTimeout = 10 * time.Minute

// HTTPHandler serves MCP over the streamable HTTP transport. Every request
// must carry "Authorization: Bearer KEY" with a valid API key, or it is
// answered 401 with nothing else; a tool call then reaches only the
// namespaces that key allows. The key is checked again on each request,
// so a revoked key stops working within its session.
func HTTPHandler(mem *memory.Memory, keys auth.Store, opts Options) http.Handler {
	opts = opts.withDefaults()
	srv := newServer(mem, opts, keyScope(opts.DefaultNamespace, opts.Logger))
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger: opts.Logger, SessionTimeout: SessionTimeout,
		// The SDK refuses a loopback connection naming another host, against
		// DNS rebinding of unauthenticated local servers. Every request here
		// needs a key that a browser never attaches on its own, so rebinding
		// gains nothing, while the check would refuse a reverse proxy on the
		// same host that /v1 serves.
		DisableLocalhostProtection: true,
	})
	// Keys do not expire (they are revoked), so TokenInfo has no expiration.
	return sdkauth.RequireBearerToken(verifier(keys, opts.Logger),
		&sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// principalKey holds the auth.Principal in TokenInfo.Extra, which the SDK
// hands to tool handlers as CallToolRequest.Extra.TokenInfo.
const principalKey = "amem.principal"

// verifier checks a bearer token against the key store. A session is
// bound to its key (TokenInfo.UserID): another key cannot use it.
func verifier(keys auth.Store, log *slog.Logger) sdkauth.TokenVerifier {
	return func(ctx context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
		// Package server's gate has looked this request's key up
		// already (and rate-limited it): no second lookup.
		if p, ok := auth.FromContext(ctx); ok {
			return &sdkauth.TokenInfo{UserID: p.KeyID, Extra: map[string]any{principalKey: p}}, nil
		}
		p, err := auth.Authenticate(ctx, keys, token)
		switch {
		case errors.Is(err, auth.ErrNoToken), errors.Is(err, auth.ErrInvalidToken), errors.Is(err, auth.ErrRevoked):
			// The reason is for the server's log; the client learns only 401.
			log.Info("mcp: request refused", "reason", err, "remote", r.RemoteAddr)
			return nil, sdkauth.ErrInvalidToken
		case err != nil:
			log.Error("mcp: checking an API key", "err", err)
			return nil, errors.New("cannot check the API key now")
		}
		return &sdkauth.TokenInfo{UserID: p.KeyID, Extra: map[string]any{principalKey: p}}, nil
	}
}

// errDenied is the whole answer for a namespace the key does not allow:
// it says nothing about what the namespace holds.
var errDenied = errors.New("namespace not allowed for this API key")

// keyScope allows a tool call the namespaces of the request's key. A call
// that gives no namespace gets the default one, or the key's only one.
func keyScope(def string, log *slog.Logger) scope {
	return func(req *mcp.CallToolRequest, ns string) (string, error) {
		p, ok := principal(req)
		if !ok {
			// Only reachable if the handler is mounted without the
			// middleware: no principal is never admin.
			log.Error("mcp: tool call without an API key")
			return "", errDenied
		}
		if ns == "" {
			switch {
			case p.Allows(def):
				ns = def
			case len(p.Namespaces) == 1:
				ns = p.Namespaces[0]
			default:
				return "", fmt.Errorf("give a namespace: this API key allows %s", strings.Join(p.Namespaces, ", "))
			}
		}
		if !p.Allows(ns) {
			log.Warn("mcp: namespace refused", "key", p.KeyID, "namespace", ns, "tool", req.Params.Name)
			return "", errDenied
		}
		return ns, nil
	}
}

func principal(req *mcp.CallToolRequest) (auth.Principal, bool) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return auth.Principal{}, false
	}
	p, ok := req.Extra.TokenInfo.Extra[principalKey].(auth.Principal)
	return p, ok
}
