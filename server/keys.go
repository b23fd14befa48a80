package server

import (
	"net/http"

	"github.com/amem-dev/amem/auth"
)

// Key management over HTTP, for admin keys only: what `amem keys` does on
// the database's machine, for an operator who reaches only the server.

// keyInput is the body of POST /v1/keys.
type keyInput struct {
	Name       string   `json:"name"`
	Admin      bool     `json:"admin"`
	Namespaces []string `json:"namespaces"`
}

// createdKey is a new key and its token, shown this once.
type createdKey struct {
	Token string `json:"token"`
	auth.Key
}

type keyList struct {
	Keys []auth.Key `json:"keys"`
}

// adminOnly answers 403 to a key that is not an admin key; what names
// what it needs one for.
func adminOnly(w http.ResponseWriter, r *http.Request, p auth.Principal, what string) bool {
	if p.Admin {
		return true
	}
	problem(w, r, http.StatusForbidden, "%s needs an admin key ('amem keys create --admin')", what)
	return false
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	if !adminOnly(w, r, p, "managing keys") {
		return
	}
	var in keyInput
	if err := decode(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	k, token, err := auth.NewKey(in.Name, in.Admin, in.Namespaces, s.now().UTC())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.opts.Keys.CreateKey(r.Context(), k); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/keys/"+k.ID)
	reply(w, http.StatusCreated, createdKey{Token: token, Key: k})
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	if !adminOnly(w, r, p, "managing keys") {
		return
	}
	keys, err := s.opts.Keys.Keys(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if keys == nil {
		keys = []auth.Key{}
	}
	reply(w, http.StatusOK, keyList{Keys: keys})
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	if !adminOnly(w, r, p, "managing keys") {
		return
	}
	if err := s.opts.Keys.RevokeKey(r.Context(), r.PathValue("id"), s.now().UTC()); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
