package server

import (
	"net/http"

	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/webhook"
)

// Webhooks of a namespace, for admin keys only: a webhook's URL sees
// every change of the namespace, and the server makes requests to it, so
// a namespace's own key may not point one anywhere.

// createdWebhook is a new webhook and its secret, shown this once.
type createdWebhook struct {
	Secret string `json:"secret"`
	webhook.Hook
}

type webhookList struct {
	Webhooks []webhook.Status `json:"webhooks"`
}

// webhookStore returns the store of webhooks, or answers 501.
func (s *Server) webhookStore(w http.ResponseWriter, r *http.Request, p auth.Principal) webhook.Store {
	if !adminOnly(w, r, p, "managing webhooks") {
		return nil
	}
	if s.opts.Webhooks == nil {
		problem(w, r, http.StatusNotImplemented, "this server keeps no webhooks")
	}
	return s.opts.Webhooks
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	st := s.webhookStore(w, r, p)
	if st == nil {
		return
	}
	var in webhook.Input
	if err := decode(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	h, err := webhook.New(r.PathValue("ns"), in, s.now())
	if err == nil {
		err = s.opts.WebhookTargets.CheckURL(h.URL)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := st.CreateWebhook(r.Context(), h); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/namespaces/"+h.Namespace+"/webhooks/"+h.ID)
	reply(w, http.StatusCreated, createdWebhook{Secret: h.Secret, Hook: h})
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	st := s.webhookStore(w, r, p)
	if st == nil {
		return
	}
	hooks, err := st.Webhooks(r.Context(), r.PathValue("ns"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if hooks == nil {
		hooks = []webhook.Status{}
	}
	for i := range hooks {
		hooks[i].Hook = hooks[i].Hook.Redacted() // the URL's password was shown once, at creation
	}
	reply(w, http.StatusOK, webhookList{Webhooks: hooks})
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	st := s.webhookStore(w, r, p)
	if st == nil {
		return
	}
	if err := st.DeleteWebhook(r.Context(), r.PathValue("ns"), r.PathValue("id")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
