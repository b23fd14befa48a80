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
	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/wire"
)

// Processes sharing one database: every note one acknowledges is found by
// the others' next search in every mode, a note is enriched by one of them
// once, histories have no gaps, evolutions are never lost, and a key
// created or revoked anywhere counts everywhere. These run real amem
// processes, on a SQLite file and on a PostgreSQL schema: the guarantees
// are the store's, so every test runs on both.

// sharedDBs are the databases several processes can share, each made
// fresh for a test.
var sharedDBs = []struct {
	name string
	new  func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "shared.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
}

// onEachDB runs test as a subtest on a fresh database of each kind.
func onEachDB(t *testing.T, test func(t *testing.T, db string)) {
	for _, d := range sharedDBs {
		t.Run(d.name, func(t *testing.T) {
			// Most of a run is processes starting and waiting for
			// leases and polls, so the two overlap well.
			t.Parallel()
			test(t, d.new(t))
		})
	}
}

// countingLLM is the fake model server, counting construction requests
// per note token (a word matching tokenRE in the note), with an
// adjustable delay before each answer. Each evolution it answers sets the
// neighbour's context to one naming the new note's token, so that every
// evolution is a change with its own history row, and it records which
// neighbour each new note evolved.
type countingLLM struct {
	*httptest.Server
	model fakellm.Server
	delay atomic.Int64 // nanoseconds
	// inflight counts requests not answered yet.
	inflight atomic.Int32
	mu       sync.Mutex
	built    map[string]int      // token -> construction requests
	evolved  map[string][]string // new note's token -> tokens of the neighbours it evolved
}

var tokenRE = regexp.MustCompile(`zq[a-z0-9]+`)

func newCountingLLM(delay time.Duration) *countingLLM {
	l := &countingLLM{built: map[string]int{}, evolved: map[string][]string{}}
	l.delay.Store(int64(delay))
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.inflight.Add(1)
		defer l.inflight.Add(-1)
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
		rec := httptest.NewRecorder()
		l.model.ServeHTTP(rec, r)
		out := rec.Body.Bytes()
		if rec.Code == http.StatusOK {
			out = l.evolveUniquely(body, out)
		}
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		w.WriteHeader(rec.Code)
		w.Write(out)
	}))
	return l
}

var (
	newMemoryRE = regexp.MustCompile(`New memory: [^"]*"[^"]*?(zq[a-z0-9]+)`)
	m1RE        = regexp.MustCompile(`(?m)^M1 "[^"]*?(zq[a-z0-9]+)`)
)

// evolveUniquely rewrites an OpenAI answer's evolution of M1 (the fake
// model's only one) to give it the context "Evolved by TOKEN." of the new
// note, and records it. Other answers pass unchanged.
func (l *countingLLM) evolveUniquely(req, resp []byte) []byte {
	var in struct{ Messages []struct{ Content string } }
	if json.Unmarshal(req, &in) != nil || len(in.Messages) == 0 {
		return resp
	}
	user := in.Messages[len(in.Messages)-1].Content
	by, m1 := newMemoryRE.FindStringSubmatch(user), m1RE.FindStringSubmatch(user)
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if by == nil || m1 == nil || json.Unmarshal(resp, &out) != nil || len(out.Choices) == 0 {
		return resp
	}
	var answer map[string]any
	if json.Unmarshal([]byte(out.Choices[0].Message.Content), &answer) != nil {
		return resp
	}
	evolve, _ := answer["evolve"].([]any)
	changed := false
	for _, e := range evolve {
		if e, ok := e.(map[string]any); ok && e["ref"] == "M1" {
			e["context"] = "Evolved by " + by[1] + "."
			changed = true
		}
	}
	if !changed {
		return resp
	}
	l.mu.Lock()
	l.evolved[by[1]] = append(l.evolved[by[1]], m1[1])
	l.mu.Unlock()
	content, _ := json.Marshal(answer)
	var whole map[string]any
	json.Unmarshal(resp, &whole)
	whole["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"] = string(content)
	b, _ := json.Marshal(whole)
	return b
}

func (l *countingLLM) constructions(tok string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.built[tok]
}

// evolutions returns, for each new note's token, the tokens of the
// neighbours its connections evolved.
func (l *countingLLM) evolutions() map[string][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string][]string, len(l.evolved))
	for k, v := range l.evolved {
		out[k] = slices.Clone(v)
	}
	return out
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
	onEachDB(t, func(t *testing.T, db string) {
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
		// The delete went to the trash: restored by the CLI, the note is
		// back in the server's indexes through the change feed.
		if err := amemCommand(t, nil, "restore", "--db", db, "--namespace", "team", id).Run(); err != nil {
			t.Fatalf("amem restore: %v", err)
		}
		for _, mode := range modes {
			if !srv.found(t, key, "team", mode, text, id) {
				t.Errorf("%s search on the server misses the note the CLI restored from the trash", mode)
			}
		}
	})
}

// written is a note a server acknowledged.
type written struct{ id, tok, text string }

// vocabulary gives each note of a fleet test a word of its own: notes
// told apart by digits alone are too alike for the lexical embedder to
// rank each first for its own text. The curator links and evolves the
// nearest notes whatever they say, so enrichments still evolve the same
// neighbours at once.
var vocabulary = strings.Fields(`harbor violin glacier pepper lantern orchard canyon falcon meadow
	tunnel quartz saddle biscuit compass dolphin ember fjord gazebo hammock igloo jasmine kettle
	lagoon marble nectar oyster pretzel quiver raven sapphire tulip umbrella velvet walnut yodel zephyr`)

// TestThreeServesOneDatabase: writers spread over three servers and one
// namespace, enrichments evolving the same neighbours at once. Every note
// is constructed once, in all.
func TestThreeServesOneDatabase(t *testing.T) {
	onEachDB(t, func(t *testing.T, db string) { fleet(t, db, false) })
}

// TestFleetSurvivesAKill: the same with one server killed (SIGKILL) a
// third of the way through, its workers holding claims while they wait for
// its model, which never answers. The survivors take its claims over once
// the leases run out; nothing acknowledged is lost, and each note is
// constructed once by the survivors and has one construction in its
// history.
func TestFleetSurvivesAKill(t *testing.T) {
	onEachDB(t, func(t *testing.T, db string) { fleet(t, db, true) })
}

func fleet(t *testing.T, db string, kill bool) {
	llms := []*countingLLM{newCountingLLM(5 * time.Millisecond), newCountingLLM(5 * time.Millisecond), newCountingLLM(5 * time.Millisecond)}
	if kill {
		// The victim's workers claim a note each and wait: it dies
		// mid-enrichment, however the writers and workers are scheduled.
		llms[2].delay.Store(int64(time.Minute))
	}
	key := createKey(t, db, "--admin")
	srvs := make([]*served, len(llms))
	for i, l := range llms {
		defer l.Close()
		// With a kill: short enough to take over quickly, long enough
		// that a survivor slowed by -race and a busy machine (SQLite
		// writers of three processes queue for one lock) renews its
		// claims in time; 2 s was not, once, under the whole suite.
		// Without one, the default: a claim must never run out.
		args := []string{}
		if kill {
			args = []string{"--claim-lease", "6s"}
		}
		srvs[i] = startServe(t, l.env(), db, args...)
	}

	const writers, perWriter = 6, 6
	var (
		mu    sync.Mutex
		notes []written
		wg    sync.WaitGroup
		// Writers hold live for reading through a whole write and its
		// searches; the killer holds it for writing, so no request is
		// cut off: the victim dies mid-enrichment, never mid-request.
		live = sync.RWMutex{}
		dead = -1
	)
	acked := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(notes)
	}
	killed := make(chan struct{})
	if kill {
		go func() {
			defer close(killed)
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Error("the victim never had an enrichment in flight")
					return
				}
				if acked() < writers*perWriter/3 || llms[2].inflight.Load() == 0 {
					continue
				}
				live.Lock()
				_ = srvs[2].cmd.Process.Kill()
				<-srvs[2].exited
				dead = 2
				live.Unlock()
				return
			}
		}()
	} else {
		close(killed)
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				word := vocabulary[w*perWriter+i]
				tok := "zq" + word
				text := fmt.Sprintf("The %s, as writer %d noted (note %d) %s", word, w, i, tok)
				live.RLock()
				via := (w + i) % len(srvs)
				if via == dead {
					via = (via + 1) % len(srvs)
				}
				var n wire.Note
				body, _ := json.Marshal(map[string]string{"content": text})
				if code := srvs[via].call(t, "POST", "/v1/namespaces/fleet/notes", key, string(body), &n); code != 201 {
					live.RUnlock()
					t.Errorf("create on %s: %d", srvs[via].url, code)
					return
				}
				// Read-your-writes across processes, in every mode.
				for j, other := range srvs {
					if j == via || j == dead {
						continue
					}
					for _, mode := range modes {
						q := text
						if mode == "lexical" {
							q = tok
						}
						if !other.found(t, key, "fleet", mode, q, n.ID) {
							t.Errorf("%s search on server %d missed note %s just acknowledged by server %d", mode, j, n.ID, via)
						}
					}
				}
				live.RUnlock()
				mu.Lock()
				notes = append(notes, written{n.ID, tok, text})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	<-killed
	if t.Failed() {
		return
	}
	survivors, victim := srvs, (*countingLLM)(nil)
	if kill {
		survivors, victim = srvs[:2], llms[2]
	}
	waitEnriched(t, survivors[0], key, "fleet", len(notes), 60*time.Second)
	orphans := 0
	for _, n := range notes {
		c := llms[0].constructions(n.tok) + llms[1].constructions(n.tok)
		if victim != nil {
			orphans += victim.constructions(n.tok)
		} else {
			c += llms[2].constructions(n.tok)
		}
		// Each attempt the store recorded (a failed one is retried, say
		// after SQLite stayed busy past its timeout) asked a model once;
		// a construction more would be a second enrichment at once.
		var got wire.Note
		if code := survivors[0].call(t, "GET", "/v1/namespaces/fleet/notes/"+n.id, key, "", &got); code != 200 {
			t.Fatalf("get %s: %d", n.id, code)
		}
		if c != got.Enrichment.Attempts || c == 0 {
			t.Errorf("note %s (%s) was constructed %d times by the live servers in %d attempts, want one per attempt", n.id, n.tok, c, got.Enrichment.Attempts)
		}
	}
	if kill {
		if orphans == 0 {
			t.Error("the victim held no claim: the test shows nothing")
		}
		for i, s := range survivors {
			for _, n := range notes {
				for _, mode := range modes {
					q := n.text
					if mode == "lexical" {
						q = n.tok
					}
					if !s.found(t, key, "fleet", mode, q, n.id) {
						t.Errorf("%s search on survivor %d missed %s", mode, i, n.tok)
					}
				}
			}
		}
	}
	evolved := map[string][]string{}
	for _, l := range llms {
		for by, targets := range l.evolutions() {
			evolved[by] = append(evolved[by], targets...)
		}
	}
	for i, s := range survivors {
		checkFleetHistories(t, s, key, "fleet", notes, evolved)
		if t.Failed() {
			t.Fatalf("as server %d reads them", i)
		}
	}
}

// waitEnriched waits until the namespace's want notes are all enriched.
func waitEnriched(t *testing.T, s *served, key, ns string, want int, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var st wire.Stats
		if code := s.call(t, "GET", "/v1/namespaces/"+ns+"/stats", key, "", &st); code != 200 {
			t.Fatalf("stats: %d", code)
		}
		if st.Notes != want {
			t.Fatalf("%d notes in %s, want %d", st.Notes, ns, want)
		}
		if st.ByState[string(amem.EnrichDone)] == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not all enriched after %v: %v", wait, st.ByState)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkFleetHistories checks, as s reads them, that every note's history
// is continuous and ends at the note as stored, with one construction,
// and that each note the model evolved a neighbour for (evolved: new
// note's token -> the neighbours' tokens, an answer to each connection it
// was asked for) evolved one of them once: none lost, none applied twice.
// A dead server's answers may never have been applied, so a note may
// have answers that left no trace, but exactly one that did.
func checkFleetHistories(t *testing.T, s *served, key, ns string, notes []written, evolved map[string][]string) {
	t.Helper()
	byTok := make(map[string]written, len(notes))
	byID := make(map[string]written, len(notes))
	evolvedBy := map[string][]string{} // new note's ID -> tokens of the neighbours it evolved, per history
	for _, n := range notes {
		byTok[n.tok], byID[n.id] = n, n
		constructs := 0
		for _, v := range checkHistory(t, s, key, ns, n.id) {
			switch v.Actor {
			case string(amem.ActorConstruct):
				constructs++
			case string(amem.ActorEvolve):
				by, _, _ := strings.Cut(strings.TrimPrefix(v.Reason, "evolved by new note "), ":")
				evolvedBy[by] = append(evolvedBy[by], n.tok)
			}
		}
		if constructs != 1 {
			t.Errorf("note %s has %d construction versions, want 1", n.id, constructs)
		}
	}
	for by, targets := range evolvedBy {
		if _, ok := byID[by]; !ok {
			t.Errorf("evolutions %v by %q, not a note written", targets, by)
		}
	}
	for by, answered := range evolved {
		got := evolvedBy[byTok[by].id]
		if len(got) != 1 || !slices.Contains(answered, got[0]) {
			t.Errorf("note %s evolved %v (per the histories), want one of %v once", by, got, answered)
		}
	}
	if len(evolved) == 0 {
		t.Error("no evolutions: the test shows nothing")
	}
}

// checkHistory checks a note's history is versions 1..N, N its version,
// the last one the note as stored, and returns it.
func checkHistory(t *testing.T, s *served, key, ns, id string) []wire.Version {
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
			return h.Versions
		}
	}
	if len(h.Versions) > 0 {
		last := h.Versions[len(h.Versions)-1].Snapshot
		if last.Content != n.Content || last.Context != n.Context || !slices.Equal(last.Tags, n.Tags) || !slices.Equal(last.Keywords, n.Keywords) {
			t.Errorf("note %s is not as its last version left it:\n  note %+v\n  last %+v", id, n, last)
		}
	}
	return h.Versions
}

// TestKeysOnEveryInstance: a key created with `amem keys create` while
// three servers run works on each at its next request, and after `amem
// keys revoke` each refuses it at its next request, while another key
// still works.
func TestKeysOnEveryInstance(t *testing.T) {
	onEachDB(t, func(t *testing.T, db string) {
		other := createKey(t, db, "--namespace", "team")
		srvs := []*served{startServe(t, nil, db), startServe(t, nil, db), startServe(t, nil, db)}
		for _, s := range srvs {
			if code := s.call(t, "GET", "/v1/namespaces/team/notes", other, "", nil); code != 200 {
				t.Fatalf("list with the first key: %d", code)
			}
		}
		out, err := amemCommand(t, nil, "keys", "create", "--db", db, "--namespace", "team", "--name", "fleet", "--json").Output()
		if err != nil {
			t.Fatalf("keys create: %v", err)
		}
		var created struct {
			Key string `json:"key"`
			ID  string `json:"id"`
		}
		if err := json.Unmarshal(out, &created); err != nil || created.Key == "" || created.ID == "" {
			t.Fatalf("keys create --json: %v: %s", err, out)
		}
		for i, s := range srvs {
			if code := s.call(t, "POST", "/v1/namespaces/team/notes", created.Key, `{"content": "written with the new key"}`, nil); code != 201 {
				t.Errorf("server %d: a write with the key just created: %d, want 201", i, code)
			}
			if code := s.call(t, "GET", "/v1/namespaces/elsewhere/notes", created.Key, "", nil); code != 403 {
				t.Errorf("server %d: another namespace with the key: %d, want 403", i, code)
			}
		}
		if out, err := amemCommand(t, nil, "keys", "revoke", "--db", db, created.ID).CombinedOutput(); err != nil {
			t.Fatalf("keys revoke: %v: %s", err, out)
		}
		for i, s := range srvs {
			if code := s.call(t, "GET", "/v1/namespaces/team/notes", created.Key, "", nil); code != 401 {
				t.Errorf("server %d: the revoked key: %d, want 401", i, code)
			}
			if code := s.call(t, "GET", "/v1/namespaces/team/notes", other, "", nil); code != 200 {
				t.Errorf("server %d: the key not revoked: %d, want 200", i, code)
			}
		}
	})
}
