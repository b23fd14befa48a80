package enrich

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/repeatlog"

	"go.opentelemetry.io/otel/trace"
)

// Host is what the engine needs of the memory whose notes it enriches.
// Package memory implements it over its store, embedder and kernel.
type Host interface {
	// View and Update run a transaction on the store; after the memory
	// is closed they return amem.ErrClosed.
	View(ctx context.Context, fn func(amem.Tx) error) error
	Update(ctx context.Context, fn func(amem.Tx) error) error
	// Embed embeds texts, one vector of Config.Dimensions each, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Nearest returns the k notes of n's namespace nearest to n's
	// embedding, n excluded, most similar first.
	Nearest(ctx context.Context, n amem.Note, k int) ([]amem.Candidate, error)
	// Advance tells the process's indexes that ns changed (after a
	// write commits).
	Advance(ctx context.Context, ns string)
}

// Options are the enrichment's knobs. Zero fields mean the defaults.
type Options struct {
	// Candidates is how many nearest notes are shown to the curator as
	// link candidates (default DefaultCandidates, the paper's k).
	Candidates int

	// RestatementSimilarity is the cosine at or above which a new note and
	// its nearest neighbour are checked for saying the same thing (same
	// names, numbers and negation, nearly the same words); a restatement
	// is linked to the note it restates, first and at strength 1, with a
	// reason that starts with RestatementReason. Default
	// DefaultRestatementSimilarity; negative turns it off.
	RestatementSimilarity float64

	// OnEnrich, if set, is called once after each enrichment that ran
	// (whoever started it: Add, Enrich, a worker), with the note as it
	// ended and the error (an *Error when the curator failed); not for a
	// note found already enriched, nor for callers that waited on an
	// enrichment already running. For metrics; it must not block.
	OnEnrich func(n amem.Note, err error)

	// Async stops Add and Update from enriching before they return; the
	// caller (or a worker) enriches later. Default false. The engine does
	// not read it: it is the memory's write path's.
	Async bool

	// MaxAttempts: a note whose enrichment failed this many times is left
	// failed, out of the background queue, until an explicit retry.
	// Default 5.
	MaxAttempts int
	// RetryBackoff: after its n-th failure a note is due again after
	// RetryBackoff * 2^(n-1), capped at 10 minutes, with ±20% jitter so
	// that notes that failed together (a provider outage) are not retried
	// together. Default 1s.
	RetryBackoff time.Duration

	// ClaimLease is how long an enrichment's claim on its note lasts
	// unless renewed; it is renewed every third of it while the
	// enrichment runs, so it bounds how long a note claimed by a process
	// that died waits before another process takes it over. Default 30s.
	ClaimLease time.Duration
}

// Defaults.
const (
	DefaultCandidates   = 10
	DefaultMaxAttempts  = 5
	DefaultRetryBackoff = time.Second
	DefaultClaimLease   = 30 * time.Second
)

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.RestatementSimilarity == 0 {
		o.RestatementSimilarity = DefaultRestatementSimilarity
	}
	if o.Candidates <= 0 {
		o.Candidates = DefaultCandidates
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = DefaultRetryBackoff
	}
	if o.ClaimLease <= 0 {
		o.ClaimLease = DefaultClaimLease
	}
	return o
}

const maxBackoff = 10 * time.Minute

// retryAt is when a note that has now failed attempts times is due again:
// zero once it has used up MaxAttempts. jitter is in [-1, 1].
func (o Options) retryAt(now time.Time, attempts int, jitter float64) time.Time {
	if attempts >= o.MaxAttempts {
		return time.Time{}
	}
	d := o.RetryBackoff
	for i := 1; i < attempts && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	return now.Add(d + time.Duration(jitter*backoffJitter*float64(d)))
}

// backoffJitter spreads retries by up to ±20% of the backoff.
const backoffJitter = 0.2

// Config is what New needs besides the host: the memory's curator,
// logger, clock, tracer and embedding text, and the enrichment's knobs.
type Config struct {
	// Curator makes the A-Mem decisions. Nil: Enrich only reads the note.
	Curator amem.Curator
	// Logger receives warnings such as dropped curator output. Default
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// TracerProvider makes the spans of an enrichment; nil means the
	// global one, looked up per span.
	TracerProvider trace.TracerProvider
	// EmbedText builds the text that is embedded for a note. Required.
	EmbedText func(amem.Note) string
	// Dimensions is the embedder's: a note's vector is reused only when
	// it has this length.
	Dimensions int
	Options
}

// Engine enriches a memory's notes: construction, links, evolution and
// supersession under a claim in the store (claim.go), by callers and by
// background workers. It is safe for concurrent use.
type Engine struct {
	h   Host
	c   Config
	log *slog.Logger

	// owner names this Engine in the claims it takes; each claim adds a
	// number of its own.
	owner  string
	claims atomic.Uint64

	warmMu sync.Mutex
	warm   map[string]*warmState // per namespace, kept when its index is evicted

	wakeMu sync.Mutex
	wake   chan struct{} // closed and replaced by Notify

	waitMu  sync.Mutex
	waiters map[string]chan struct{} // closed when this process releases a claim on the note
}

// New returns an Engine over h. c's zero fields take their defaults.
func New(h Host, c Config) *Engine {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	c.Options = c.Options.WithDefaults()
	return &Engine{
		h: h, c: c, log: c.Logger,
		owner:   newOwner(),
		warm:    make(map[string]*warmState),
		wake:    make(chan struct{}),
		waiters: make(map[string]chan struct{}),
	}
}

// newOwner names an Engine in claims: host and process for people reading
// the store, random bits so two Engines of one process differ.
func newOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// get reads a note. Every note the engine reads was named by a claim it
// holds, so its namespace and ID are valid.
func (e *Engine) get(ctx context.Context, ns, id string) (amem.Note, error) {
	var n amem.Note
	err := e.h.View(ctx, func(tx amem.Tx) error {
		var err error
		n, err = tx.Note(ns, id)
		return err
	})
	return n, err
}

// list reads a page of a namespace's notes.
func (e *Engine) list(ctx context.Context, ns string, q amem.ListQuery) ([]amem.Note, error) {
	var notes []amem.Note
	err := e.h.View(ctx, func(tx amem.Tx) error {
		var err error
		notes, err = tx.ListNotes(ns, q)
		return err
	})
	return notes, err
}

// sameVector reports whether next, a changed version of prev, can keep
// prev's vector: its embedding text is the same and prev has a vector of
// the embedder's size.
func (e *Engine) sameVector(prev, next amem.Note) bool {
	return len(prev.Embedding) == e.c.Dimensions && e.c.EmbedText(prev) == e.c.EmbedText(next)
}

// embed is the host's Embed, which nothing need ask for no text.
func (e *Engine) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	return e.h.Embed(ctx, texts)
}

// Notify wakes every worker waiting for work, without blocking.
func (e *Engine) Notify() {
	e.wakeMu.Lock()
	close(e.wake)
	e.wake = make(chan struct{})
	e.wakeMu.Unlock()
}

// wakeChan returns the channel the next Notify closes. Take it before
// looking for work, so a Notify in between is not missed.
func (e *Engine) wakeChan() <-chan struct{} {
	e.wakeMu.Lock()
	defer e.wakeMu.Unlock()
	return e.wake
}

// Work is one worker's loop: claim a due note, enrich it, repeat; when
// none is due, wait for Notify or the poll interval. It returns when ctx
// is cancelled; the enrichments run under work, so one started finishes.
// fails is shared by the workers: a store that fails each claim is logged
// once a minute, not per poll.
func (e *Engine) Work(ctx, work context.Context, poll time.Duration, fails *repeatlog.Log) {
	for ctx.Err() == nil {
		woken := e.wakeChan()
		claims, err := e.claimDue(ctx, 1)
		switch {
		case err != nil && ctx.Err() == nil && !errors.Is(err, amem.ErrClosed):
			fails.Fail(e.c.Now(), err)
		case err == nil:
			fails.OK(e.c.Now())
		}
		if len(claims) == 0 {
			t := time.NewTimer(poll)
			select {
			case <-ctx.Done():
			case <-woken:
			case <-t.C:
			}
			t.Stop()
			continue
		}
		for _, c := range claims {
			if _, err := e.enrichClaimed(work, c, e.dueNow); err != nil {
				var ee *Error
				if !errors.As(err, &ee) {
					e.log.Warn("background enrichment", "namespace", c.ref.Namespace, "note", c.ref.ID, "err", err)
				}
			}
		}
	}
}
