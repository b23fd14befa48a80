package sqlstore

import (
	"sync"
	"time"

	"github.com/amem-dev/amem"
)

// Health is a store's verdict on taking writes, as its Health method
// reports it: set by probes and by failed transactions, and trusted
// without a new probe for Every after it was decided. It is safe for
// concurrent use.
type Health struct {
	// Every is how long a verdict is trusted; set before use.
	Every time.Duration
	// Sticky is a reason that, once set, stays the verdict until the
	// process ends (a damaged SQLite file does not heal); "" for none.
	// Set before use.
	Sticky string

	probing sync.Mutex // held while a probe runs: one at a time

	mu    sync.Mutex
	err   *amem.HealthError // nil: healthy
	at    time.Time         // when err was decided; zero: never
	stuck *amem.HealthError // the Sticky verdict, once set
}

// Verdict returns the current verdict and whether it is recent enough to
// trust without a probe.
func (h *Health) Verdict() (error, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stuck != nil {
		return h.stuck, true
	}
	fresh := !h.at.IsZero() && time.Since(h.at) < h.Every
	if h.err == nil {
		return nil, fresh
	}
	return h.err, fresh
}

// Set decides the verdict: f, or healthy if f is nil.
func (h *Health) Set(f *amem.HealthError) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f != nil && h.Sticky != "" && f.Reason == h.Sticky {
		h.stuck = f
	}
	h.err, h.at = f, time.Now()
}

// Renew trusts the current verdict for another interval.
func (h *Health) Renew() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.at = time.Now()
}

// Check returns the verdict if it is fresh, and otherwise what probe
// returns. Probes run one at a time, and a caller that waited for
// another's probe takes its verdict instead of probing again, so that a
// burst of readiness checks costs one probe. probe decides the verdict
// itself (Set, Renew).
func (h *Health) Check(probe func() error) error {
	if err, fresh := h.Verdict(); fresh {
		return err
	}
	h.probing.Lock()
	defer h.probing.Unlock()
	if err, fresh := h.Verdict(); fresh { // another caller just probed
		return err
	}
	return probe()
}
