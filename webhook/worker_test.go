package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/mock"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/webhook"
)

// clock is a settable clock, shared by the Memory and the worker.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// receiver is a webhook endpoint that fails (500), hangs past the
// client's timeout or accepts, as told, and keeps what it accepted after
// checking its signature.
type receiver struct {
	t      *testing.T
	secret string
	now    func() time.Time
	srv    *httptest.Server

	mu       sync.Mutex
	mode     string // "fail", "hang", "ok"
	got      []webhook.Payload
	attempts int
}

func newReceiver(t *testing.T, now func() time.Time) *receiver {
	r := &receiver{t: t, now: now, mode: "ok"}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) setMode(m string) {
	r.mu.Lock()
	r.mode = m
	r.mu.Unlock()
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	r.mu.Lock()
	mode := r.mode
	r.attempts++
	r.mu.Unlock()
	switch mode {
	case "fail":
		http.Error(w, "down for maintenance", http.StatusInternalServerError)
		return
	case "hang":
		<-req.Context().Done() // the worker's timeout ends it
		return
	}
	if err := webhook.Verify(r.secret, req.Header.Get(webhook.SignatureHeader), body, r.now(), 0); err != nil {
		r.t.Errorf("delivery with a bad signature: %v", err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var p webhook.Payload
	if err := json.Unmarshal(body, &p); err != nil {
		r.t.Errorf("delivery body %q: %v", body, err)
	}
	if id := req.Header.Get(webhook.EventIDHeader); id != p.ID {
		r.t.Errorf("event ID header %q, body %q", id, p.ID)
	}
	r.mu.Lock()
	r.got = append(r.got, p)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// received returns the events accepted, each once (by event ID), in the
// order first accepted.
func (r *receiver) received() []webhook.Payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	var out []webhook.Payload
	for _, p := range r.got {
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, p)
		}
	}
	return out
}

// wordEmbedder embeds a text as its words hashed into 8 dimensions: notes
// sharing words are neighbours, so the curator sees candidates.
func wordEmbedder() *mock.Embedder {
	return &mock.Embedder{Dims: 8, ModelName: "test-words", EmbedFunc: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, text := range texts {
			v := make([]float32, 8)
			for _, w := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%8]++
			}
			out[i] = v
		}
		return out, nil
	}}
}

// evolvingCurator gives every note a keyword and evolves every candidate
// with a tag, so that enrichment writes both "enriched" and "evolved".
func evolvingCurator() *mock.Curator {
	return &mock.Curator{
		ConstructFunc: func(_ context.Context, n amem.Note) (amem.Attributes, error) {
			return amem.Attributes{Keywords: []string{"kw-" + strings.ToLower(n.ID[len(n.ID)-4:])}}, nil
		},
		ConnectFunc: func(_ context.Context, n amem.Note, cands []amem.Candidate) (amem.Decision, error) {
			var d amem.Decision
			for _, c := range cands {
				d.Evolve = append(d.Evolve, amem.Evolution{Target: c.Note.ID, Tags: append(slices.Clone(c.Note.Tags), "seen-by-"+strings.ToLower(n.ID[len(n.ID)-4:]))})
			}
			return d, nil
		},
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func openMemory(t testing.TB, path string, clk *clock) (*memory.Memory, *sqlite.Store) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := memory.Open(context.Background(), st, &memory.Options{Embedder: wordEmbedder(), Curator: evolvingCurator(),
		Now: clk.Now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return m, st
}

// loopback allows the test receivers, which listen on 127.0.0.1.
func loopback(t *testing.T) webhook.Targets {
	t.Helper()
	tg, err := webhook.ParseTargets([]string{"127.0.0.0/8", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func newWorker(t *testing.T, st webhook.Store, clk *clock, owner string) *webhook.Worker {
	t.Helper()
	w, err := webhook.NewWorker(st, &webhook.Options{Owner: owner, Timeout: 200 * time.Millisecond, Targets: loopback(t),
		MinBackoff: time.Second, MaxBackoff: time.Minute, Now: clk.Now, Jitter: func() float64 { return 0 }, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func createHook(t *testing.T, st webhook.Store, ns, url string, now time.Time) webhook.Hook {
	t.Helper()
	h, err := webhook.New(ns, webhook.Input{URL: url}, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateWebhook(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	return h
}

type event struct {
	kind    amem.EventKind
	note    string
	version int
}

// TestDeliveryFailsTimesOutRecovers: a receiver that answers 500, then
// hangs past the timeout, then recovers after a restart of the server
// (a new Memory and worker over the same database, with a lease left by
// a worker that died) gets every event, signed, each note's in order,
// and another namespace's receiver gets only its own.
func TestDeliveryFailsTimesOutRecovers(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "amem.db")
	m, st := openMemory(t, path, clk)

	alice, bob := newReceiver(t, clk.Now), newReceiver(t, clk.Now)
	alice.secret = createHook(t, st, "alice", alice.srv.URL+"/hook", clk.Now()).Secret
	bob.secret = createHook(t, st, "bob", bob.srv.URL, clk.Now()).Secret

	// Written while the receiver is down.
	alice.setMode("fail")
	a, err := m.Add(ctx, amem.AddRequest{Namespace: "alice", Content: "Alice drinks green tea every morning"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Add(ctx, amem.AddRequest{Namespace: "alice", Content: "Alice drinks tea with Bob on Sundays"})
	if err != nil {
		t.Fatal(err)
	}
	ctxText := "about tea"
	if _, err := m.Update(ctx, "alice", a.ID, amem.UpdateRequest{Context: &ctxText}); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(ctx, "alice", b.ID); err != nil {
		t.Fatal(err)
	}
	bn, err := m.Add(ctx, amem.AddRequest{Namespace: "bob", Content: "Bob plays chess"})
	if err != nil {
		t.Fatal(err)
	}

	w := newWorker(t, st, clk, "first")
	r, err := w.DeliverDue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Retried != 1 || r.Delivered != 1 { // alice's first failed, the rest deferred; bob's delivered
		t.Fatalf("round while alice's receiver fails: %+v", r)
	}
	sts, err := st.Webhooks(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 1 || !strings.Contains(sts[0].LastError, "500") || sts[0].Pending == 0 || sts[0].Delivered != 0 {
		t.Fatalf("alice's webhook after a failure: %+v", sts)
	}

	// Alice's are not due before the backoff (bob's next event is: a
	// note's events go one at a time); then the receiver times out.
	if r, err := w.DeliverDue(ctx); err != nil || r.Claimed != r.Delivered || r.Retried+r.Deferred != 0 {
		t.Fatalf("before the backoff: %+v, %v", r, err)
	}
	alice.setMode("hang")
	clk.Add(time.Second)
	start := time.Now()
	if r, err := w.DeliverDue(ctx); err != nil || r.Retried != 1 {
		t.Fatalf("a hanging receiver: %+v, %v", r, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a hanging receiver held the round %v", d)
	}

	// A worker claims and dies with its lease; the server restarts.
	clk.Add(2 * time.Second)
	if _, err := st.ClaimEvents(ctx, "died", clk.Now(), clk.Now().Add(time.Minute), 2); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	m, st = openMemory(t, path, clk)
	defer st.Close()
	defer m.Close()
	alice.setMode("ok")
	clk.Add(2 * time.Minute) // past the dead worker's lease and every backoff
	w = newWorker(t, st, clk, "second")
	for i := 0; ; i++ {
		r, err := w.DeliverDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Claimed == 0 {
			break
		}
		if i == 20 {
			t.Fatal("events still due after 20 rounds")
		}
	}

	// Every event, each note's in version order.
	cur, err := m.Get(ctx, "alice", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := m.History(ctx, "alice", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var want []event
	for _, v := range hist {
		kind := map[amem.Actor]amem.EventKind{amem.ActorUser: amem.EventCreated, amem.ActorConstruct: amem.EventEnriched,
			amem.ActorEvolve: amem.EventEvolved}[v.Actor]
		if v.Version > 1 && v.Actor == amem.ActorUser {
			kind = amem.EventUpdated
		}
		want = append(want, event{kind, a.ID, v.Version})
	}
	if cur.Version != len(hist) || len(hist) < 4 {
		t.Fatalf("note a at version %d with %d history rows; the test expects created, enriched, evolved, updated", cur.Version, len(hist))
	}
	got := map[string][]event{}
	for _, p := range alice.received() {
		if p.Namespace != "alice" {
			t.Errorf("alice's receiver got %+v", p)
		}
		got[p.NoteID] = append(got[p.NoteID], event{p.Kind, p.NoteID, p.Version})
	}
	if !slices.Equal(got[a.ID], want) {
		t.Errorf("note a's events %v, want %v", got[a.ID], want)
	}
	if g := got[b.ID]; len(g) != 3 || g[0] != (event{amem.EventCreated, b.ID, 1}) || g[1].kind != amem.EventEnriched ||
		g[2] != (event{amem.EventDeleted, b.ID, g[1].version}) {
		t.Errorf("note b's events %v, want created, enriched, deleted at its last version", g)
	}
	bobGot := bob.received()
	if len(bobGot) != 2 || bobGot[0].NoteID != bn.ID || bobGot[0].Kind != amem.EventCreated ||
		bobGot[1].Kind != amem.EventEnriched || bobGot[1].Namespace != "bob" {
		t.Errorf("bob's receiver got %+v, want its note's created and enriched only", bobGot)
	}
	sts, err = st.Webhooks(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if s := sts[0]; s.Pending != 0 || s.Failed != 0 || s.Delivered != len(alice.received()) {
		t.Errorf("alice's webhook at the end: %+v", s)
	}
}

// TestDeliveryGivesUp: past MaxAge a failing event is kept as failed and
// no longer holds its note's later events back.
func TestDeliveryGivesUp(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "amem.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rcv := newReceiver(t, clk.Now)
	rcv.secret = createHook(t, st, "alice", rcv.srv.URL, clk.Now()).Secret
	rcv.setMode("fail")
	m, err := memory.Open(ctx, st, &memory.Options{Embedder: wordEmbedder(), Now: clk.Now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	n, err := m.Add(ctx, amem.AddRequest{Namespace: "alice", Content: "first"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := webhook.NewWorker(st, &webhook.Options{MaxAge: time.Hour, Now: clk.Now, Logger: quiet, Targets: loopback(t)})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := w.DeliverDue(ctx); err != nil || r.Retried != 1 {
		t.Fatalf("first attempt: %+v, %v", r, err)
	}
	clk.Add(time.Hour)
	if r, err := w.DeliverDue(ctx); err != nil || r.GaveUp != 1 {
		t.Fatalf("past MaxAge: %+v, %v", r, err)
	}
	rcv.setMode("ok")
	if err := m.Delete(ctx, "alice", n.ID); err != nil {
		t.Fatal(err)
	}
	if r, err := w.DeliverDue(ctx); err != nil || r.Delivered != 1 {
		t.Fatalf("after giving up: %+v, %v", r, err)
	}
	if got := rcv.received(); len(got) != 1 || got[0].Kind != amem.EventDeleted {
		t.Fatalf("received %+v, want the deletion", got)
	}
	sts, err := st.Webhooks(ctx, "alice")
	if err != nil || len(sts) != 1 || sts[0].Failed != 1 || sts[0].Pending != 0 || sts[0].Delivered != 1 {
		t.Fatalf("webhook status %+v, %v", sts, err)
	}
	if !errors.Is(webhook.Verify(rcv.secret, "t=1,v1=00", nil, clk.Now(), 0), webhook.ErrStale) {
		t.Fatal("Verify accepted a signature from 1970")
	}
}
