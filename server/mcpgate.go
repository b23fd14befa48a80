package server

import (
	"net/http"
	"sync"
	"time"

	"github.com/amem-dev/amem/auth"
)

// /mcp answers under the same key checks as the API: mcpGate looks its
// key up once, applies the key's rate limit (40 tool calls at --key-rate
// 5 were all accepted before), caps the MCP sessions a key holds open
// (one namespace key opened 3,000 in 8 s, each alive for an hour), and
// hands the principal on in the context, where package mcpserver's
// verifier finds it instead of looking the key up again. A missing or
// wrong key is left to MCP's own 401, which says where its metadata is.

// mcpSessionHeader names a streamable HTTP session (MCP's transport).
const mcpSessionHeader = "Mcp-Session-Id"

func (s *Server) mcpGate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := auth.Authenticate(r.Context(), s.opts.Keys, auth.BearerToken(r.Header.Get("Authorization")))
		if err != nil {
			if isAuthError(err) {
				h.ServeHTTP(w, r)
			} else {
				s.fail(w, r, err) // a store that can't be reached is a 503
			}
			return
		}
		if ok, wait := s.keyLimits.take(p.KeyID, s.now()); !ok {
			tooMany(w, r, wait, "this API key is over its rate limit")
			return
		}
		id := r.Header.Get(mcpSessionHeader)
		switch {
		case id == "" && r.Method == http.MethodPost:
			if n, ok := s.mcpSessions.admit(p.KeyID, s.now()); !ok {
				w.Header().Set("Retry-After", "60")
				problem(w, r, http.StatusTooManyRequests, "this API key holds %d MCP sessions, the most allowed; end one (DELETE /mcp) or let one idle out", n)
				return
			}
			w = &sessionRecorder{ResponseWriter: w, started: func(id string) { s.mcpSessions.add(id, p.KeyID, s.now()) }}
		case r.Method == http.MethodDelete:
			defer s.mcpSessions.end(id)
		default:
			s.mcpSessions.touch(id, s.now())
		}
		h.ServeHTTP(w, r.WithContext(auth.NewContext(r.Context(), p)))
	})
}

// sessionRecorder sees the session ID MCP gives a new session.
type sessionRecorder struct {
	http.ResponseWriter
	started func(id string)
	seen    bool
}

func (w *sessionRecorder) WriteHeader(code int) {
	if !w.seen {
		w.seen = true
		if id := w.Header().Get(mcpSessionHeader); id != "" && code < 300 {
			w.started(id)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionRecorder) Write(b []byte) (int, error) {
	if !w.seen {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *sessionRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *sessionRecorder) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// mcpSessions counts each key's MCP sessions: begun, not ended, and used
// within the idle timeout (the one MCP's handler closes them after).
type mcpSessions struct {
	max  int // per key; <= 0: no cap
	idle time.Duration

	mu     sync.Mutex
	byID   map[string]mcpSession
	byKey  map[string]int
	pruned time.Time // when idle sessions were last forgotten
}

type mcpSession struct {
	key  string
	seen time.Time
}

func newMCPSessions(max int, idle time.Duration) *mcpSessions {
	return &mcpSessions{max: max, idle: idle, byID: map[string]mcpSession{}, byKey: map[string]int{}}
}

// admit reports whether key may begin another session, with how many it
// holds. Sessions idle past the timeout (closed by MCP's handler) are
// forgotten first: every key's when this key is at its cap, and at least
// once per idle period anyway, so that sessions nobody ended do not pile
// up in the map.
func (m *mcpSessions) admit(key string, now time.Time) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.max <= 0 {
		return 0, true
	}
	if m.byKey[key] >= m.max || now.Sub(m.pruned) > m.idle {
		m.pruned = now
		for id, s := range m.byID {
			if now.Sub(s.seen) > m.idle {
				m.endLocked(id)
			}
		}
	}
	return m.byKey[key], m.byKey[key] < m.max
}

func (m *mcpSessions) add(id, key string, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byID[id]; !ok {
		m.byKey[key]++
	}
	m.byID[id] = mcpSession{key: key, seen: now}
}

func (m *mcpSessions) touch(id string, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.byID[id]; ok {
		s.seen = now
		m.byID[id] = s
	}
}

func (m *mcpSessions) end(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.endLocked(id)
}

func (m *mcpSessions) endLocked(id string) {
	s, ok := m.byID[id]
	if !ok {
		return
	}
	delete(m.byID, id)
	if m.byKey[s.key]--; m.byKey[s.key] <= 0 {
		delete(m.byKey, s.key)
	}
}
