package sqlstore

import (
	"sync"

	"github.com/amem-dev/amem"
)

// Gate counts a store's running transactions, so that Close can wait for
// them to end, and refuses new ones once the store is closing. The zero
// Gate is open; it must not be copied after first use. It is safe for
// concurrent use.
type Gate struct {
	mu     sync.Mutex
	idle   sync.Cond // signalled when active drops to 0; Close sets L to &mu
	active int       // transactions running
	closed bool
}

// Enter admits a transaction, or returns amem.ErrClosed once Close was
// called. Each Enter that returns nil must be matched by one Leave.
func (g *Gate) Enter() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return amem.ErrClosed
	}
	g.active++
	return nil
}

// Leave ends a transaction that Enter admitted.
func (g *Gate) Leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	if g.active == 0 { // Broadcast needs no L: only Close's Wait does
		g.idle.Broadcast()
	}
}

// Close refuses new transactions and waits for the running ones to end.
// It reports whether this call closed the gate: false if it was closed
// already, and the caller has nothing left to release. Called from inside
// a transaction it waits forever.
func (g *Gate) Close() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.closed = true
	g.idle.L = &g.mu // set here, so that the zero Gate is ready to use
	for g.active > 0 {
		g.idle.Wait()
	}
	return true
}
