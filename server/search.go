package server

import (
	"net/http"
	"strconv"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/wire"
)

// search answers GET .../search?q=&k=&mode=&profile=&min_score=&links=&tag=&from=&to=&meta=&as_of=&exclude_superseded=.
func (s *Server) search(w http.ResponseWriter, r *http.Request, _ auth.Principal) {
	req, msg := searchRequest(r)
	if msg != "" {
		problem(w, r, http.StatusBadRequest, "%s", msg)
		return
	}
	res, err := s.mem.Search(r.Context(), req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	reply(w, http.StatusOK, wire.ResultList{Results: wire.Items(res, wire.ResultOf)})
}

// searchRequest parses the query string; msg says what is wrong with it.
func searchRequest(r *http.Request) (amem.SearchRequest, string) {
	q := r.URL.Query()
	req := amem.SearchRequest{Namespace: r.PathValue("ns"), Query: q.Get("q"), Mode: amem.SearchMode(q.Get("mode"))}
	if req.Query == "" {
		return req, "q is required: the text to search for"
	}
	if v := q.Get("k"); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 || k > amem.MaxK {
			return req, "k=" + strconv.Quote(v) + " must be a number from 1 to " + strconv.Itoa(amem.MaxK)
		}
		req.K = k
	}
	switch req.Mode {
	case "", amem.SearchHybrid, amem.SearchVector, amem.SearchLexical:
	default:
		return req, "mode=" + strconv.Quote(string(req.Mode)) + " must be hybrid, vector or lexical"
	}
	switch p := amem.Profile(q.Get("profile")); p {
	case "", amem.ProfileAuto, amem.ProfileGeneral, amem.ProfileConversation:
		req.Profile = p
	default:
		return req, "profile=" + strconv.Quote(string(p)) + " must be auto, general or conversation"
	}
	if v := q.Get("min_score"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return req, "min_score=" + strconv.Quote(v) + " must be a number from 0 to 1"
		}
		req.MinScore = f
	}
	if v := q.Get("links"); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return req, "links=" + strconv.Quote(v) + " must be true or false"
		}
		if !on {
			req.LinksPerHit = -1
		}
	}
	f, err := filterOf(q)
	if err != nil {
		return req, err.Error()
	}
	req.Filter = f
	if msg := validityQuery(q, &req); msg != "" {
		return req, msg
	}
	return req, ""
}
