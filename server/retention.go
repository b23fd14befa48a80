package server

import (
	"net/http"

	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/wire"
)

// getRetention answers a namespace's retention policy and what it would
// move to the trash now.
func (s *Server) getRetention(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	ns := r.PathValue("ns")
	p, due, err := s.mem.RetentionDue(r.Context(), ns)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.RetentionOf(ns, p, due))
}

// putRetention sets a namespace's retention policy (both fields empty or
// 0 turn it off) and answers it as getRetention does. The workers apply
// it at their next pass.
func (s *Server) putRetention(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	var in wire.RetentionInput
	if err := decode(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	policy, err := in.Retention()
	if err == nil {
		err = s.mem.SetRetention(r.Context(), r.PathValue("ns"), policy)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.getRetention(w, r, p)
}
