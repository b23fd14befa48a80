// Package repeatlog logs a failure that repeats on every poll (a database
// gone read-only fails each worker's every claim, once a second: 86,000
// lines a day) once when it starts, then at most once per Every with the
// number of repeats left out, and once more when it stops.
package repeatlog

import (
	"log/slog"
	"sync"
	"time"
)

// Every is how often a failure that goes on is logged again.
const Every = time.Minute

// Log is one loop's failure log. It is safe for concurrent use (one Log
// may serve several workers).
type Log struct {
	Logger *slog.Logger
	Msg    string

	mu      sync.Mutex
	failing bool
	logged  time.Time
	left    int
	since   time.Time
}

// Fail records a failure at now, logging it as a warning if it is the
// first, or the first for Every.
func (l *Log) Fail(now time.Time, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.failing {
		l.failing, l.since, l.logged, l.left = true, now, now, 0
		l.Logger.Warn(l.Msg, "err", err)
		return
	}
	if now.Sub(l.logged) < Every {
		l.left++
		return
	}
	l.Logger.Warn(l.Msg, "err", err, "failing_since", l.since, "repeats_not_logged", l.left)
	l.logged, l.left = now, 0
}

// OK records a success at now: if it ends a failure, that is logged.
func (l *Log) OK(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.failing {
		return
	}
	l.failing = false
	l.Logger.Info(l.Msg+": working again", "failed_for", now.Sub(l.since).Round(time.Millisecond), "repeats_not_logged", l.left)
}
