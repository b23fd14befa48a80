package memory

import (
	"context"
	"sync"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/repeatlog"
)

// WorkerOptions configure background enrichment. Zero fields mean the
// defaults. How often a failed note is retried is the Memory's
// (Options.Enrich.MaxAttempts, RetryBackoff), since every path that
// fails a note schedules its retry.
type WorkerOptions struct {
	// Workers enriching in parallel (default 2).
	Workers int
	// PollInterval is how often an idle worker asks the store for due
	// notes (default 2s): notes written by other processes, and failed
	// notes whose backoff has passed. An Add in this process wakes the
	// workers at once.
	PollInterval time.Duration
	// CompactInterval is how often the change feed's tombstones older
	// than TombstoneAge are dropped (default 10 minutes; age 1 hour), and
	// the notes past the trash's retention deleted for good.
	CompactInterval time.Duration
	TombstoneAge    time.Duration
}

func (o WorkerOptions) withDefaults() WorkerOptions {
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.CompactInterval <= 0 {
		o.CompactInterval = 10 * time.Minute
	}
	if o.TombstoneAge <= 0 {
		o.TombstoneAge = time.Hour
	}
	return o
}

// RunWorkers enriches due notes (pending ones, and failed ones whose
// backoff has passed) until ctx is cancelled. The queue is the notes
// table: each worker claims the oldest due note in the store (one indexed
// query, no scan), so notes left pending by a process that died are
// enriched after the restart, and several processes' workers share one
// queue without enriching a note twice. On cancellation no new note is
// started; enrichments in flight finish (they are not cut off half-way),
// then RunWorkers returns ctx's error. Run it once per Memory, typically
// with Options.Enrich.Async set so that Add returns as soon as the note is
// durable.
func (m *Memory) RunWorkers(ctx context.Context, opts WorkerOptions) error {
	o := opts.withDefaults()
	// Enrichments started keep running past cancellation: a drained
	// shutdown leaves no note half-processed.
	work := context.WithoutCancel(ctx)
	// One log for every worker: a store that fails each claim (a
	// database gone read-only) is logged once a minute, not per poll.
	fails := &repeatlog.Log{Logger: m.log, Msg: "claim due notes"}
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.enr.Work(ctx, work, o.PollInterval, fails)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		m.compactFeeds(ctx, o)
	}()
	wg.Wait()
	return ctx.Err()
}

// compactFeeds drops old tombstones from every namespace's change feed
// now and then, so the feed stays the size of recent deletions, and
// deletes for good the notes whose time in the trash is up.
func (m *Memory) compactFeeds(ctx context.Context, o WorkerOptions) {
	t := time.NewTicker(o.CompactInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := m.CompactFeeds(ctx, m.opts.Now().Add(-o.TombstoneAge)); err != nil && ctx.Err() == nil {
			m.log.Warn("compact change feeds", "err", err)
		}
		if _, err := m.Trash().Expire(ctx); err != nil && ctx.Err() == nil {
			m.log.Warn("expire the trash", "err", err)
		}
		m.sweepRetention(ctx) // retention.go
	}
}

// CompactFeeds drops the tombstones of deletions made before t from every
// namespace's change feed, and returns how many. A process whose index is
// behind a dropped tombstone reloads the namespace in full on its next
// search, so compaction is always safe; it only costs such a reload.
func (m *Memory) CompactFeeds(ctx context.Context, before time.Time) (int, error) {
	infos, err := m.Namespaces(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, info := range infos {
		err := m.update(ctx, func(tx amem.Tx) error {
			n, err := tx.CompactFeed(info.Name, before)
			total += n
			return err
		})
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
