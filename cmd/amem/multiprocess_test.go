package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/fakellm"
	"github.com/amem-dev/amem/wire"
)

// Processes sharing one database: every note one acknowledges is found by
// the other's next search in every mode, a note is enriched by one of them
// once, and histories have no gaps. These run real amem processes.

// countingLLM is the fake model server, counting construction requests
// per note token (a word matching tokenRE in the note), with an
// adjustable delay before each answer.
type countingLLM struct {
	*httptest.Server
	model fakellm.Server
	delay atomic.Int64 // nanoseconds
	mu    sync.Mutex
	built map[string]int // token -> construction requests
}

var tokenRE = regexp.MustCompile(`zq[a-z0-9]+`)

func newCountingLLM(delay time.Duration) *countingLLM {
	l := &countingLLM{built: map[string]int{}}
	l.delay.Store(int64(delay))
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"note_attributes"`)) {
			l.mu.Lock()
			for _, tok := range slices.Compact(tokenRE.FindAllString(string(body), -1)) {
				l.built[tok]++
			}
			l.mu.Unlock()
		}
		select {
		case <-time.After(time.Duration(l.delay.Load())):
		case <-r.Context().Done():
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		l.model.ServeHTTP(w, r)
	}))
	return l
}

func (l *countingLLM) constructions(tok string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.built[tok]
}

func (l *countingLLM) env() []string {
	return []string{"AMEM_LLM=openai:" + fakellm.Model, "OPENAI_BASE_URL=" + l.URL + "/v1", "OPENAI_API_KEY=sk-test"}
}

type searchHit struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
}

// found reports whether a search on srv in mode lists id as a direct hit.
func (s *served) found(t *testing.T, key, ns, mode, q, id string) bool {
	t.Helper()
	var res struct{ Results []searchHit }
	path := fmt.Sprintf("/v1/namespaces/%s/search?mode=%s&k=10&q=%s", ns, mode, url.QueryEscape(q))
	if code := s.call(t, "GET", path, key, "", &res); code != 200 {
		t.Errorf("search %s on %s: %d", mode, s.url, code)
		return false
	}
	return slices.ContainsFunc(res.Results, func(h searchHit) bool { return h.ID == id && h.Kind == "direct" })
}

var modes = []string{"vector", "lexical", "hybrid"}

func TestServeSeesCLIWrites(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shared.db")
	key := createKey(t, db, "--namespace", "team")
	srv := startServe(t, nil, db)
	// Load the namespace's index in the server before the CLI writes.
	var first wire.Note
	if code := srv.call(t, "POST", "/v1/namespaces/team/notes?wait=true", key, `{"content": "the first note zqfirst"}`, &first); code != 201 {
		t.Fatalf("create: %d", code)
	}
	for _, mode := range modes {
		if !srv.found(t, key, "team", mode, "the first note zqfirst", first.ID) {
			t.Fatalf("%s: the server's own note not found", mode)
		}
	}

	text := "The CLI wrote this beside the server zqcliwrite"
	out, err := amemCommand(t, nil, "add", "--db", db, "--namespace", "team", text).Output()
	if err != nil {
		t.Fatalf("amem add: %v", err)
	}
	id := strings.TrimSpace(string(out))
	for _, mode := range modes {
		if !srv.found(t, key, "team", mode, text, id) {
			t.Errorf("%s search on the server missed the note the CLI added", mode)
		}
	}
	if err := amemCommand(t, nil, "delete", "--db", db, "--namespace", "team", id).Run(); err != nil {
		t.Fatalf("amem delete: %v", err)
	}
	for _, mode := range modes {
		if srv.found(t, key, "team", mode, text, id) {
			t.Errorf("%s search on the server still finds the note the CLI deleted", mode)
		}
	}
}

func TestTwoServesOneDatabase(t *testing.T) {
	llm := newCountingLLM(5 * time.Millisecond)
	defer llm.Close()
	db := filepath.Join(t.TempDir(), "fleet.db")
	key := createKey(t, db, "--admin")
	srvs := []*served{startServe(t, llm.env(), db), startServe(t, llm.env(), db)}

	const writers, perWriter = 8, 8
	type written struct{ id, tok, text string }
	var (
		mu    sync.Mutex
		notes []written
		wg    sync.WaitGroup
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				tok := fmt.Sprintf("zqw%dn%d", w, i)
				text := fmt.Sprintf("Writer %d wrote note %d about the shared garden %s", w, i, tok)
				via, other := srvs[(w+i)%2], srvs[(w+i+1)%2]
				var n wire.Note
				body, _ := json.Marshal(map[string]string{"content": text})
				if code := via.call(t, "POST", "/v1/namespaces/fleet/notes", key, string(body), &n); code != 201 {
					t.Errorf("create on %s: %d", via.url, code)
					return
				}
				// Read-your-writes across processes, in every mode.
				for _, mode := range modes {
					q := text
					if mode == "lexical" {
						q = tok
					}
					if !other.found(t, key, "fleet", mode, q, n.ID) {
						t.Errorf("%s search on the other server missed note %s just acknowledged", mode, n.ID)
					}
				}
				mu.Lock()
				notes = append(notes, written{n.ID, tok, text})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	deadline := time.Now().Add(90 * time.Second)
	for {
		var st wire.Stats
		if code := srvs[0].call(t, "GET", "/v1/namespaces/fleet/stats", key, "", &st); code != 200 {
			t.Fatalf("stats: %d", code)
		}
		if st.ByState[string(amem.EnrichDone)] == len(notes) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not all enriched: %v", st.ByState)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, n := range notes {
		if c := llm.constructions(n.tok); c != 1 {
			t.Errorf("note %s (%s) was constructed %d times, want once", n.id, n.tok, c)
		}
		checkHistory(t, srvs[1], key, "fleet", n.id)
	}
}

// checkHistory checks a note's history is versions 1..N, N its version.
func checkHistory(t *testing.T, s *served, key, ns, id string) {
	t.Helper()
	var n wire.Note
	if code := s.call(t, "GET", "/v1/namespaces/"+ns+"/notes/"+id, key, "", &n); code != 200 {
		t.Fatalf("get %s: %d", id, code)
	}
	var h struct{ Versions []wire.Version }
	if code := s.call(t, "GET", "/v1/namespaces/"+ns+"/notes/"+id+"/history", key, "", &h); code != 200 {
		t.Fatalf("history %s: %d", id, code)
	}
	if len(h.Versions) != n.Version {
		t.Errorf("note %s at version %d has %d history rows", id, n.Version, len(h.Versions))
	}
	for i, v := range h.Versions {
		if v.Version != i+1 {
			t.Errorf("note %s: history row %d is version %d", id, i, v.Version)
			return
		}
	}
}

// TestKilledClaimIsTakenOver kills a server (SIGKILL) while its worker
// holds the claim on a note, waiting for the model: a second server takes
// the note over once the lease runs out, and enriches it once.
func TestKilledClaimIsTakenOver(t *testing.T) {
	llm := newCountingLLM(time.Minute)
	defer llm.Close()
	db := filepath.Join(t.TempDir(), "claim.db")
	key := createKey(t, db, "--admin")
	a := startServe(t, llm.env(), db, "--claim-lease", "1s")
	var n wire.Note
	if code := a.call(t, "POST", "/v1/namespaces/crash/notes", key, `{"content": "a note whose enrichment dies zqorphan"}`, &n); code != 201 {
		t.Fatalf("create: %d", code)
	}
	for deadline := time.Now().Add(30 * time.Second); llm.constructions("zqorphan") == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the first server never asked the model")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.exited
	llm.delay.Store(0)

	b := startServe(t, llm.env(), db, "--claim-lease", "1s")
	var got wire.Note
	for deadline := time.Now().Add(60 * time.Second); ; {
		if code := b.call(t, "GET", "/v1/namespaces/crash/notes/"+n.ID, key, "", &got); code != 200 {
			t.Fatalf("get: %d", code)
		}
		if got.Enrichment.State == string(amem.EnrichDone) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the orphaned note was not taken over: %+v", got.Enrichment)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c := llm.constructions("zqorphan"); c != 2 {
		t.Errorf("%d constructions, want 2 (the dead server's, then the one take-over)", c)
	}
	var h struct{ Versions []wire.Version }
	b.call(t, "GET", "/v1/namespaces/crash/notes/"+n.ID+"/history", key, "", &h)
	constructs := 0
	for _, v := range h.Versions {
		if v.Actor == string(amem.ActorConstruct) {
			constructs++
		}
	}
	if constructs != 1 {
		t.Errorf("%d construction versions in the history, want 1: %+v", constructs, h.Versions)
	}
	checkHistory(t, b, key, "crash", n.ID)
}
