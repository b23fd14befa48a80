package server

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/internal/jsonin"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

// noteInput is a note to create.
type noteInput struct {
	Content  string            `json:"content"`
	Time     *jsonin.Time      `json:"time,omitempty"`
	Keywords []string          `json:"keywords,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Context  string            `json:"context,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// request makes the library's request. No time (absent or null) means
// now; a time given must be one a note can hold, the zero time included,
// which AddRequest would take for now.
func (in noteInput) request(ns string, wait bool) (amem.AddRequest, error) {
	req := amem.AddRequest{Namespace: ns, Content: in.Content, Keywords: in.Keywords,
		Tags: in.Tags, Context: in.Context, Metadata: in.Metadata, Wait: wait}
	if in.Time != nil {
		if err := amem.ValidEventTime(in.Time.Time); err != nil {
			return req, err
		}
		req.EventTime = in.Time.Time
	}
	return req, nil
}

// decodeCreate reads a create request: the body into v, and the ?wait=
// flag (enrich before answering).
func decodeCreate(r *http.Request, v any) (wait bool, err error) {
	if q := r.URL.Query().Get("wait"); q != "" {
		if wait, err = strconv.ParseBool(q); err != nil {
			return false, fmt.Errorf("%w: wait=%q is not true or false", amem.ErrInvalid, q)
		}
	}
	return wait, decode(r, v)
}

func (s *Server) createNote(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	var in noteInput
	wt, err := decodeCreate(r, &in)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	req, err := in.request(r.PathValue("ns"), wt)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	n, err := s.mem.Add(r.Context(), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", r.URL.Path+"/"+n.ID)
	reply(w, http.StatusCreated, wire.NoteOf(n))
}

type batchInput struct {
	Notes []noteInput `json:"notes"`
}

func (s *Server) createNotes(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	var in batchInput
	wt, err := decodeCreate(r, &in)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reqs := make([]amem.AddRequest, len(in.Notes))
	for i, n := range in.Notes {
		if reqs[i], err = n.request(r.PathValue("ns"), wt); err != nil {
			s.fail(w, r, fmt.Errorf("note %d: %w", i, err))
			return
		}
	}
	notes, err := s.mem.AddBatch(r.Context(), reqs)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusCreated, wire.NotePage{Notes: wire.Items(notes, wire.NoteOf)})
}

// Paging defaults of GET .../notes.
const (
	defaultPage = 100
	maxPage     = 1000
)

func (s *Server) listNotes(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	q := r.URL.Query()
	bq := amem.BrowseQuery{After: q.Get("after"), State: amem.EnrichState(q.Get("state"))}
	limit, msg := pageLimit(q.Get("limit"))
	if msg != "" {
		problem(w, r, http.StatusBadRequest, "%s", msg)
		return
	}
	bq.Limit = limit
	switch bq.State {
	case "", amem.EnrichPending, amem.EnrichDone, amem.EnrichFailed:
	default:
		problem(w, r, http.StatusBadRequest, "state=%q must be pending, done or failed", bq.State)
		return
	}
	switch o := q.Get("order"); o {
	case "", "oldest":
	case "newest":
		bq.Newest = true
	case "oldest_event":
		bq.ByEventTime = true
	case "newest_event":
		bq.ByEventTime, bq.Newest = true, true
	default:
		problem(w, r, http.StatusBadRequest, "order=%q must be oldest or newest (by creation), oldest_event or newest_event (by event time)", o)
		return
	}
	f, err := filterOf(q)
	if err != nil {
		problem(w, r, http.StatusBadRequest, "%v", err)
		return
	}
	bq.Filter = f
	notes, err := s.mem.Browse(r.Context(), r.PathValue("ns"), bq)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	res := wire.NotePage{Notes: wire.Items(notes, wire.NoteOf)}
	if len(notes) == limit {
		res.Next = notes[len(notes)-1].ID
	}
	reply(w, http.StatusOK, res)
}

// pageLimit reads a limit= parameter: defaultPage when absent; msg says
// what is wrong with it.
func pageLimit(v string) (n int, msg string) {
	if v == "" {
		return defaultPage, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxPage {
		return 0, fmt.Sprintf("limit=%q must be a number from 1 to %d", v, maxPage)
	}
	return n, ""
}

// linkPage is a page of a namespace's links.
type linkPage struct {
	Links []wire.Link `json:"links"`
	Next  string      `json:"next,omitempty"`
}

// listLinks pages through a namespace's links by the note that chose
// them (the source), in the source's ID order: a page holds every link
// chosen by up to limit notes after the ID after, so each link is in
// exactly one page, and the graph view can draw a namespace in a few
// requests instead of one per note.
func (s *Server) listLinks(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	limit, msg := pageLimit(r.URL.Query().Get("limit"))
	if msg != "" {
		problem(w, r, http.StatusBadRequest, "%s", msg)
		return
	}
	notes, err := s.mem.List(r.Context(), r.PathValue("ns"), amem.ListQuery{After: r.URL.Query().Get("after"), Limit: limit})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	res := linkPage{Links: []wire.Link{}}
	for _, n := range notes {
		for _, l := range n.Links {
			if l.Source == n.ID {
				res.Links = append(res.Links, wire.LinkOf(l))
			}
		}
	}
	if len(notes) == limit {
		res.Next = notes[len(notes)-1].ID
	}
	reply(w, http.StatusOK, res)
}

func (s *Server) getNote(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	n, err := s.mem.Get(r.Context(), r.PathValue("ns"), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.NoteOf(n))
}

// patchInput changes a note; absent fields are left as they are. Keywords
// or a context given become the caller's, which the curator leaves alone;
// give_back names those the caller hands back to the curator.
type patchInput struct {
	Content  *string           `json:"content,omitempty"`
	Time     *jsonin.Time      `json:"time,omitempty"`
	Keywords *[]string         `json:"keywords,omitempty"`
	Tags     *[]string         `json:"tags,omitempty"`
	Context  *string           `json:"context,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	GiveBack []string          `json:"give_back,omitempty"`
	Reason   string            `json:"reason,omitempty"`

	// The caller's word on whether the note is still true (validity.go).
	Validity *validityInput `json:"validity,omitempty"`
}

func (s *Server) updateNote(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	var in patchInput
	if err := decode(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if in.Content == nil && in.Time == nil && in.Keywords == nil && in.Tags == nil &&
		in.Context == nil && in.Metadata == nil && in.Validity == nil && len(in.GiveBack) == 0 {
		problem(w, r, http.StatusBadRequest, "nothing to change: give content, time, keywords, tags, context, metadata, validity or give_back")
		return
	}
	req := amem.UpdateRequest{Content: in.Content, Keywords: in.Keywords, Tags: in.Tags,
		Context: in.Context, Metadata: in.Metadata, GiveBack: attributes(in.GiveBack), Reason: in.Reason, Validity: in.Validity.validity()}
	if in.Time != nil { // null: unchanged; any time given is checked by Update
		req.EventTime = &in.Time.Time
	}
	n, err := s.mem.Update(r.Context(), r.PathValue("ns"), r.PathValue("id"), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.NoteOf(n))
}

func (s *Server) noteLinks(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	ns, err := s.mem.Links(r.Context(), r.PathValue("ns"), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.NeighborList{Links: wire.Items(ns, wire.NeighborOf)})
}

func (s *Server) noteHistory(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	vs, err := s.mem.History(r.Context(), r.PathValue("ns"), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.VersionList{Versions: wire.Items(vs, wire.VersionOf)})
}

func (s *Server) noteUsage(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	u, err := s.mem.NoteUsage(r.Context(), r.PathValue("ns"), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.UsageList{Usage: wire.Items(u, wire.UsageTotalOf)})
}

type restoreInput struct {
	Version int `json:"version"`
}

func (s *Server) restoreNote(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	var in restoreInput
	if err := decode(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if in.Version < 1 {
		problem(w, r, http.StatusBadRequest, "version must be 1 or more")
		return
	}
	n, err := s.mem.Restore(r.Context(), r.PathValue("ns"), r.PathValue("id"), in.Version)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.NoteOf(n))
}

// enrichNote runs the A-Mem pipeline on a note now: the retry of a failed
// note, or a re-enrichment. A curator failure is 502, and the note stays
// stored, marked failed.
func (s *Server) enrichNote(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	n, err := s.mem.Enrich(r.Context(), r.PathValue("ns"), r.PathValue("id"))
	var ee *memory.EnrichError
	if errors.As(err, &ee) {
		problem(w, r, http.StatusBadGateway, "enrichment failed (the note is kept, marked failed): %v", ee.Err)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.NoteOf(n))
}

// attributes are the names of a give_back list as the library takes
// them; Update checks them.
func attributes(names []string) []amem.Attribute {
	out := make([]amem.Attribute, len(names))
	for i, a := range names {
		out[i] = amem.Attribute(a)
	}
	return out
}
