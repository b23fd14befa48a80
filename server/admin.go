package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/wire"
)

// listNamespaces lists the namespaces the key may reach that hold notes.
func (s *Server) listNamespaces(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	all, err := s.mem.Namespaces(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	res := wire.NamespaceList{Namespaces: []wire.NamespaceInfo{}}
	for _, info := range all {
		if p.Allows(info.Name) {
			res.Namespaces = append(res.Namespaces, wire.NamespaceInfoOf(info))
		}
	}
	reply(w, http.StatusOK, res)
}

// keyInfo is what GET /v1/key says about the key making the request.
type keyInfo struct {
	ID    string `json:"id"`
	Admin bool   `json:"admin"`
	// Namespaces are those a non-admin key may reach, whether or not they
	// hold notes yet; empty for an admin key, which reaches every one.
	Namespaces []string `json:"namespaces"`
}

// key tells a client (the web UI signing in) which namespaces its key
// reaches: GET /v1/namespaces lists only those holding notes, and a new
// key's namespace holds none yet.
func (s *Server) key(w http.ResponseWriter, _ *http.Request, p auth.Principal) {
	nss := p.Namespaces
	if nss == nil || p.Admin {
		nss = []string{}
	}
	reply(w, http.StatusOK, keyInfo{ID: p.KeyID, Admin: p.Admin, Namespaces: nss})
}

// stats answers for a namespace with no notes too: counting nothing is
// not an error, and a 404 would tell an outsider less than a 403 anyway.
func (s *Server) stats(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	ns := r.PathValue("ns")
	st, err := s.mem.Stats(r.Context(), ns)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(st) == 0 {
		st = []amem.Stats{{Namespace: ns, NamespaceStats: amem.NamespaceStats{ByState: map[amem.EnrichState]int{}},
			Usage: []amem.UsageTotal{}}}
	}
	reply(w, http.StatusOK, wire.StatsOf(st[0]))
}

type health struct {
	Status  string `json:"status"`
	Version string `json:"version,omitempty"`
}

// healthz says the process is up; it touches nothing.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request, _ auth.Principal) {
	reply(w, http.StatusOK, health{Status: "ok", Version: s.opts.Version})
}

// readyz says the server takes requests: not draining, and the store
// answers and can take writes (memory.Memory.Health). A store that only
// answers reads is not ready: every write would fail. The detail says why
// in the store's plain words ("disk full"), never the cause, which may
// name files; the log has that.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	if s.draining.Load() {
		problem(w, r, http.StatusServiceUnavailable, "shutting down")
		return
	}
	if err := s.mem.Health(r.Context()); err != nil {
		s.storeDown.Fail(s.now(), fmt.Errorf("readiness: %w", err))
		w.Header().Set("Retry-After", retryAfter)
		var he *amem.HealthError
		if errors.As(err, &he) {
			problem(w, r, http.StatusServiceUnavailable, "%s", he.Reason)
			return
		}
		problem(w, r, http.StatusServiceUnavailable, "the store does not answer")
		return
	}
	s.storeDown.OK(s.now())
	reply(w, http.StatusOK, health{Status: "ready", Version: s.opts.Version})
}
