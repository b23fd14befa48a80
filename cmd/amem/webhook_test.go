package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/amem-dev/amem/webhook"
)

// TestServeWebhooks: `amem serve` sends a namespace's note events to its
// webhook, signed; an event made while the receiver is down and the
// server is then stopped reaches it after the next start.
func TestServeWebhooks(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	admin := createKey(t, db, "--admin")

	var (
		mu     sync.Mutex
		down   = true
		secret string
		got    []webhook.Payload
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		if err := webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), body, time.Now(), 0); err != nil {
			t.Errorf("delivery: %v", err)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var p webhook.Payload
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("delivery %q: %v", body, err)
		}
		got = append(got, p)
	}))
	defer rcv.Close()

	srv := startServe(t, nil, db, "--webhook-allow", "127.0.0.1")
	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if code := srv.call(t, "POST", "/v1/namespaces/team/webhooks", admin,
		`{"url": "`+rcv.URL+`/hook", "kinds": ["created", "deleted"]}`, &hook); code != 201 || hook.Secret == "" {
		t.Fatalf("create webhook: %d %+v", code, hook)
	}
	mu.Lock()
	secret = hook.Secret
	mu.Unlock()
	var note struct {
		ID string `json:"id"`
	}
	if code := srv.call(t, "POST", "/v1/namespaces/team/notes", admin, `{"content": "The deploy freeze starts on Friday"}`, &note); code != 201 {
		t.Fatalf("create note: %d", code)
	}
	// The receiver refuses the first attempt; the server stops.
	waitFor(t, func() bool {
		var list struct {
			Webhooks []webhook.Status `json:"webhooks"`
		}
		srv.call(t, "GET", "/v1/namespaces/team/webhooks", admin, "", &list)
		return len(list.Webhooks) == 1 && strings.Contains(list.Webhooks[0].LastError, "503")
	})
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-srv.exited; err != nil {
		t.Fatalf("amem serve after SIGTERM: %v\n%s", err, srv.stderr)
	}
	if strings.Contains(srv.stderr.String(), hook.Secret) {
		t.Fatal("the log holds the webhook's secret")
	}

	mu.Lock()
	down = false
	mu.Unlock()
	// The retry waits out its backoff (about a second) after the start.
	srv = startServe(t, nil, db, "--webhook-allow", "127.0.0.1")
	if code := srv.call(t, "DELETE", "/v1/namespaces/team/notes/"+note.ID, admin, "", nil); code != 204 {
		t.Fatalf("delete note: %d", code)
	}
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= 2
	})
	mu.Lock()
	defer mu.Unlock()
	if got[0].Kind != "created" || got[0].NoteID != note.ID || got[1].Kind != "deleted" || got[1].NoteID != note.ID ||
		got[0].Namespace != "team" {
		t.Fatalf("received %+v, want the note's created then deleted", got)
	}
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met in 20 s")
}
