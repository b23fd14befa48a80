package amem

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// WorkerOptions configure background enrichment. Zero fields mean the
// defaults.
type WorkerOptions struct {
	// Workers enriching in parallel (default 2).
	Workers int
	// PollInterval is how often the store is scanned for due notes
	// (default 2s); an Add in this process wakes the workers at once.
	PollInterval time.Duration
	// MaxAttempts: a note that failed this many times is left failed for
	// a manual retry (Enrich, EnrichPending, `amem enrich --retry`).
	// Default 5.
	MaxAttempts int
	// BaseBackoff: after its n-th failure a note is retried after
	// BaseBackoff * 2^(n-1), capped at 10 minutes, with ±20% jitter.
	// Default 1s.
	BaseBackoff time.Duration
}

const maxBackoff = 10 * time.Minute

func (o WorkerOptions) withDefaults() WorkerOptions {
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = time.Second
	}
	return o
}

// backoff is the wait after a note's n-th failed attempt.
func (o WorkerOptions) backoff(n int) time.Duration {
	d := o.BaseBackoff
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// RunWorkers enriches pending notes, and retries failed ones with
// backoff, until ctx is cancelled. The queue is the notes table itself, so
// notes that were pending when a process died are enriched after restart.
// On cancellation no new note is started; enrichments in flight finish
// (they are not cut off half-way), then RunWorkers returns ctx's error.
// Run it once per Memory, typically with Options.Async set so that Add
// returns as soon as the note is durable.
func (m *Memory) RunWorkers(ctx context.Context, opts WorkerOptions) error {
	o := opts.withDefaults()
	jobs := make(chan Note)
	var wg sync.WaitGroup
	var mu sync.Mutex
	inFlight := make(map[string]bool)
	// Enrichments started keep running past cancellation: a drained
	// shutdown leaves no note half-processed.
	work := context.WithoutCancel(ctx)
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range jobs {
				due := func(cur Note) bool { return o.due(cur.Enrichment, m.opts.Now(), -backoffJitter) }
				if _, err := m.enrichOnce(work, n.Namespace, n.ID, due); err != nil {
					var ee *EnrichError
					if !errors.As(err, &ee) {
						m.log.Warn("background enrichment", "namespace", n.Namespace, "note", n.ID, "err", err)
					}
				}
				mu.Lock()
				delete(inFlight, n.ID)
				mu.Unlock()
			}
		}()
	}
	defer func() {
		close(jobs)
		wg.Wait()
	}()

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		case <-m.wakeChan():
		}
		due, err := m.dueNotes(ctx, o)
		if err != nil && ctx.Err() == nil {
			m.log.Warn("scan for pending notes", "err", err)
		}
		for _, n := range due {
			mu.Lock()
			busy := inFlight[n.ID]
			if !busy {
				inFlight[n.ID] = true
			}
			mu.Unlock()
			if busy {
				continue
			}
			select {
			case jobs <- n:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		timer.Reset(o.PollInterval)
	}
}

// backoffJitter spreads retries by up to ±20% of the backoff, so notes
// that failed together (a provider outage) are not retried together.
const backoffJitter = 0.2

// due reports whether a note in enrichment state e is to be enriched at
// now: pending, or failed fewer than MaxAttempts times with its backoff,
// stretched by the factor 1+jitter, passed. The scan draws the jitter;
// the check made again just before enriching (a note may have been
// enriched or failed once more since the scan) takes the smallest, so it
// never refuses what the scan chose unless the note changed.
func (o WorkerOptions) due(e Enrichment, now time.Time, jitter float64) bool {
	switch e.State {
	case EnrichPending:
		return true
	case EnrichFailed:
		if e.Attempts >= o.MaxAttempts {
			return false
		}
		wait := o.backoff(e.Attempts)
		wait += time.Duration(jitter * float64(wait))
		return !e.At.Add(wait).After(now)
	}
	return false
}

// dueNotes lists pending notes and failed notes whose backoff has passed,
// oldest first within each namespace.
func (m *Memory) dueNotes(ctx context.Context, o WorkerOptions) ([]Note, error) {
	infos, err := m.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	now := m.opts.Now()
	var due []Note
	for _, info := range infos {
		for _, st := range []EnrichState{EnrichPending, EnrichFailed} {
			after := ""
			for {
				page, err := m.List(ctx, info.Name, ListQuery{After: after, Limit: 500, State: st})
				if err != nil {
					return due, err
				}
				for _, n := range page {
					if !o.due(n.Enrichment, now, (rand.Float64()*2-1)*backoffJitter) {
						continue
					}
					n.Embedding = nil // workers re-read the note; don't hold vectors
					due = append(due, n)
				}
				if len(page) < 500 {
					break
				}
				after = page[len(page)-1].ID
			}
		}
	}
	return due, nil
}

// wakeChan is the channel that Add signals when a note waits for the
// workers.
func (m *Memory) wakeChan() chan struct{} {
	m.wakeOnce.Do(func() { m.wake = make(chan struct{}, 1) })
	return m.wake
}

// notify wakes the workers, if any, without blocking.
func (m *Memory) notify() {
	select {
	case m.wakeChan() <- struct{}{}:
	default:
	}
}
