package server

import (
	"net/http"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/wire"
)

// deleteNote moves a note to the trash, or with purge=true deletes it for
// good, whether live or already in the trash.
func (s *Server) deleteNote(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	ns, id := r.PathValue("ns"), r.PathValue("id")
	var err error
	switch p := r.URL.Query().Get("purge"); p {
	case "", "false":
		err = s.mem.Delete(r.Context(), ns, id)
	case "true":
		err = s.mem.Purge(r.Context(), ns, id)
	default:
		problem(w, r, http.StatusBadRequest, "purge=%q must be true or false", p)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) listTrash(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	q := r.URL.Query()
	limit, msg := pageLimit(q.Get("limit"))
	if msg != "" {
		problem(w, r, http.StatusBadRequest, "%s", msg)
		return
	}
	trash := s.mem.Trash()
	entries, err := trash.List(r.Context(), r.PathValue("ns"), amem.TrashQuery{After: q.Get("after"), Limit: limit})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page := wire.TrashPage{Notes: make([]wire.Trashed, len(entries))}
	for i, e := range entries {
		page.Notes[i] = wire.TrashedOf(e, trash.Retention())
	}
	if len(entries) == limit {
		page.Next = entries[len(entries)-1].Note.ID
	}
	reply(w, http.StatusOK, page)
}

func (s *Server) emptyTrash(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	n, err := s.mem.Trash().Empty(r.Context(), r.PathValue("ns"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.Purged{Purged: n})
}

func (s *Server) restoreTrashed(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	n, err := s.mem.Trash().Restore(r.Context(), r.PathValue("ns"), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.NoteOf(n))
}

func (s *Server) purgeTrashed(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	ns, id := r.PathValue("ns"), r.PathValue("id")
	n, err := s.mem.Trash().Purge(r.Context(), ns, []string{id})
	if err == nil && n == 0 {
		problem(w, r, http.StatusNotFound, "note %s is not in the trash of namespace %s", id, ns)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
