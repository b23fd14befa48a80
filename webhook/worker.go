package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/repeatlog"
)

// Payload is the JSON body of a delivery.
type Payload struct {
	// ID is the Amem-Event-Id header's value.
	ID        string         `json:"id"`
	Kind      amem.EventKind `json:"kind"`
	Namespace string         `json:"namespace"`
	NoteID    string         `json:"note_id"`
	Version   int            `json:"version"`
	// At is when the change was made.
	At time.Time `json:"at"`
}

// Options configure a Worker. Zero fields mean the defaults.
type Options struct {
	// Owner names this worker's leases (default: a random name). Two
	// workers must not share one.
	Owner string
	// Client sends the requests (default: one with Timeout that follows
	// no redirect: a 3xx answer is a failed attempt).
	Client *http.Client
	// Timeout bounds each request of the default Client (default 10s).
	Timeout time.Duration
	// Targets is where the default Client may connect: by default no
	// internal address (target.go). It is checked on the address dialled,
	// after name resolution; the default Client uses no proxy.
	Targets Targets
	// Resolver resolves target names for the default Client (default
	// net.DefaultResolver). The Targets check runs on what it answers,
	// so a name that resolves to an internal address is refused however
	// it was accepted at creation; tests give one that answers what they
	// choose.
	Resolver *net.Resolver
	// Poll is how often the outbox is read when it was empty (default
	// 1s): the latency of an event from commit to its first attempt.
	Poll time.Duration
	// Batch is the most events claimed at once (default 50).
	Batch int
	// Lease is how long a claim lasts (default 1 minute). A round sends
	// for at most half of it and gives the rest back; events leased by a
	// worker that died are sent by another once the lease ends.
	Lease time.Duration
	// MinBackoff and MaxBackoff bound the wait before a retry (defaults
	// 1s and 1h): MinBackoff doubled after each failed attempt, capped,
	// then drawn at random from its upper half.
	MinBackoff, MaxBackoff time.Duration
	// MaxAge is how long an event is retried after it was made (default
	// 72h); then it is kept as failed and counted on its webhook.
	MaxAge time.Duration
	// Now is the clock (default time.Now); Jitter draws in [0, 1)
	// (default math/rand/v2.Float64). Tests inject both.
	Now    func() time.Time
	Jitter func() float64
	// Logger receives failed attempts, never secrets (default
	// slog.Default()).
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultTimeout    = 10 * time.Second
	DefaultPoll       = time.Second
	DefaultBatch      = 50
	DefaultLease      = time.Minute
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = time.Hour
	DefaultMaxAge     = 72 * time.Hour
)

// Worker delivers the outbox's events. It is safe for concurrent use;
// run one per process.
type Worker struct {
	st   Store
	opts Options
}

// NewWorker returns a worker over st; nil opts means the defaults.
func NewWorker(st Store, opts *Options) (*Worker, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Owner == "" {
		id, err := randomHex(8)
		if err != nil {
			return nil, err
		}
		o.Owner = "webhook-" + id
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Client == nil {
		o.Client = &http.Client{
			Timeout: o.Timeout,
			Transport: &http.Transport{
				DialContext:         o.Targets.dialContext(o.Timeout, o.Resolver),
				TLSHandshakeTimeout: o.Timeout,
				MaxIdleConnsPerHost: 4,
				IdleConnTimeout:     90 * time.Second,
				ForceAttemptHTTP2:   true,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Worker{st: st, opts: o}, nil
}

// Run delivers until ctx ends, reading the outbox again at once after a
// full batch and after Poll otherwise. A store error is retried at the
// next poll (the outbox keeps what was not delivered) and logged when it
// starts, once a minute while it lasts, and when it ends.
func (w *Worker) Run(ctx context.Context) error {
	fails := &repeatlog.Log{Logger: w.opts.Logger, Msg: "webhook outbox"}
	for {
		r, err := w.DeliverDue(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			fails.Fail(w.opts.Now(), err)
		case err == nil:
			fails.OK(w.opts.Now())
		}
		if err == nil && r.Claimed == w.opts.Batch {
			continue
		}
		t := time.NewTimer(w.opts.Poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Round counts what one DeliverDue did.
type Round struct {
	Claimed   int
	Delivered int
	// Retried counts failed attempts left for a retry, GaveUp those past
	// MaxAge, Deferred events not tried because their webhook's receiver
	// had just failed in this round (or the round ran out of time).
	Retried, GaveUp, Deferred int
}

// DeliverDue claims the events due now and sends them: each webhook's in
// order, one at a time, different webhooks' at once. After a webhook's
// receiver fails, its other events of the round are deferred to the
// failed one's retry rather than each waiting out a timeout.
func (w *Worker) DeliverDue(ctx context.Context) (Round, error) {
	now := w.opts.Now()
	ds, err := w.st.ClaimEvents(ctx, w.opts.Owner, now, now.Add(w.opts.Lease), w.opts.Batch)
	if err != nil {
		return Round{}, fmt.Errorf("claim webhook events: %w", err)
	}
	byHook := map[string][]Delivery{}
	var order []string
	for _, d := range ds {
		if byHook[d.Hook.ID] == nil {
			order = append(order, d.Hook.ID)
		}
		byHook[d.Hook.ID] = append(byHook[d.Hook.ID], d)
	}
	deadline := now.Add(w.opts.Lease / 2)
	var (
		mu    sync.Mutex
		total = Round{Claimed: len(ds)}
		outs  []Outcome
		wg    sync.WaitGroup
	)
	for _, id := range order {
		wg.Go(func() {
			r, o := w.deliverHook(ctx, byHook[id], deadline)
			mu.Lock()
			defer mu.Unlock()
			total.Delivered += r.Delivered
			total.Retried += r.Retried
			total.GaveUp += r.GaveUp
			total.Deferred += r.Deferred
			outs = append(outs, o...)
		})
	}
	wg.Wait()
	// One transaction for the round. Recorded even when ctx ends (a
	// shutdown), so that what was sent is not sent again, nor what was
	// tried tried sooner; should it fail, the leases run out and the
	// events are sent again (delivery is at least once).
	if err := w.st.Finish(context.WithoutCancel(ctx), w.opts.Owner, outs); err != nil {
		return total, fmt.Errorf("record webhook outcomes: %w", err)
	}
	return total, nil
}

// deliverHook sends one webhook's events of a round in order and
// returns what became of each; DeliverDue records them all at once.
func (w *Worker) deliverHook(ctx context.Context, ds []Delivery, deadline time.Time) (Round, []Outcome) {
	var (
		r    Round
		outs []Outcome
	)
	var deferUntil time.Time // set once the receiver failed
	for _, d := range ds {
		now := w.opts.Now()
		if !deferUntil.IsZero() || ctx.Err() != nil || now.After(deadline) {
			next := deferUntil
			if next.IsZero() {
				next = now
			}
			outs = append(outs, Outcome{ID: d.ID, At: now, Attempts: d.Attempts, Next: next})
			r.Deferred++
			continue
		}
		cause := w.send(ctx, d, now)
		now = w.opts.Now()
		if cause == "" {
			outs = append(outs, Outcome{ID: d.ID, At: now, Delivered: true})
			r.Delivered++
			continue
		}
		if ctx.Err() != nil {
			// Cut short by shutdown, not the receiver's fault: not an attempt.
			outs = append(outs, Outcome{ID: d.ID, At: now, Attempts: d.Attempts, Next: now})
			r.Deferred++
			continue
		}
		attempts := d.Attempts + 1
		next := now.Add(w.backoff(attempts))
		// The receiver is failing: the webhook's other events of the
		// round wait as long as this one's retry would.
		deferUntil = next
		if now.Sub(d.At) >= w.opts.MaxAge {
			next = time.Time{}
			r.GaveUp++
		} else {
			r.Retried++
		}
		w.opts.Logger.Warn("webhook delivery failed", "webhook", d.Hook.ID, "namespace", d.Namespace,
			"event", d.ID, "attempt", attempts, "err", cause, "next", next)
		outs = append(outs, Outcome{ID: d.ID, At: now, Attempts: attempts, Next: next, Cause: cause})
	}
	return r, outs
}

// backoff is the wait after the attempts-th failed attempt.
func (w *Worker) backoff(attempts int) time.Duration {
	d := w.opts.MaxBackoff
	if attempts < 40 {
		d = min(d, w.opts.MinBackoff<<(attempts-1))
	}
	return d/2 + time.Duration(w.opts.Jitter()*float64(d/2))
}

// send POSTs d and returns why it failed, or "" for a 2xx answer.
func (w *Worker) send(ctx context.Context, d Delivery, now time.Time) string {
	id := strconv.FormatInt(d.ID, 10)
	body, err := json.Marshal(Payload{ID: id, Kind: d.Kind, Namespace: d.Namespace, NoteID: d.NoteID,
		Version: d.Version, At: d.At.UTC()})
	if err != nil {
		return err.Error()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Hook.URL, bytes.NewReader(body))
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "amem-webhook/1")
	req.Header.Set(EventIDHeader, id)
	req.Header.Set(SignatureHeader, Sign(d.Hook.Secret, now, body))
	resp, err := w.opts.Client.Do(req)
	if err != nil {
		w.opts.Logger.Warn("webhook delivery got no HTTP answer", "webhook", d.Hook.ID, "namespace", d.Namespace, "err", err)
		return failure(err)
	}
	// Read a little of the body so the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "answered " + resp.Status
	}
	return ""
}
