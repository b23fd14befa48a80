package enrich

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/amem-dev/amem"
)

// Claims. An enrichment runs under a claim on its note in the store, so
// that whichever process (or caller within one) starts it, no other
// enriches the same note until it ends: the claim is released in the
// transaction that writes the enrichment, and a claimant that lost its
// claim (its lease ran out and another took the note over) writes nothing.
// While the enrichment runs, the lease is renewed; a process that dies
// stops renewing, and its claims are taken over when their leases expire.

// claim is one claim held by this process.
type claim struct {
	e      *Engine
	ref    amem.NoteRef
	owner  string
	stop   chan struct{}
	done   sync.WaitGroup
	mu     sync.Mutex
	closed bool // released in a transaction, or given up
}

// claimPoll is how often a caller waiting for another process's claim
// checks the store again; a release in this process wakes it at once.
const claimPoll = 100 * time.Millisecond

// nextOwner returns a fresh owner token for one claim.
func (e *Engine) nextOwner() string {
	return e.owner + "#" + strconv.FormatUint(e.claims.Add(1), 10)
}

// claim takes the note's claim, waiting while another holds it.
func (e *Engine) claim(ctx context.Context, ns, id string) (*claim, error) {
	ref := amem.NoteRef{Namespace: ns, ID: id}
	owner := e.nextOwner()
	for {
		released := e.waitRelease(ref)
		now := e.c.Now()
		err := e.h.Update(ctx, func(tx amem.Tx) error {
			return tx.Claim(ns, id, owner, now, now.Add(e.c.ClaimLease))
		})
		if err == nil {
			return e.hold(ref, owner), nil
		}
		if !errors.Is(err, amem.ErrBusy) {
			e.signalRelease(ref) // drops the channel; a waiter woken in vain tries again
			return nil, err
		}
		t := time.NewTimer(claimPoll)
		select {
		case <-released:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			e.signalRelease(ref)
			return nil, ctx.Err()
		}
		t.Stop()
	}
}

// claimDue claims up to limit notes that are due, for the workers.
func (e *Engine) claimDue(ctx context.Context, limit int) ([]*claim, error) {
	owner := e.nextOwner()
	var refs []amem.NoteRef
	now := e.c.Now()
	err := e.h.Update(ctx, func(tx amem.Tx) error {
		var err error
		refs, err = tx.ClaimDue(owner, now, now.Add(e.c.ClaimLease), limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]*claim, len(refs))
	for i, r := range refs {
		out[i] = e.hold(r, owner)
	}
	return out, nil
}

// hold starts renewing a claim just taken.
func (e *Engine) hold(ref amem.NoteRef, owner string) *claim {
	c := &claim{e: e, ref: ref, owner: owner, stop: make(chan struct{})}
	c.done.Add(1)
	go c.renew()
	return c
}

// renew extends the lease every third of it until the claim ends.
func (c *claim) renew() {
	defer c.done.Done()
	lease := c.e.c.ClaimLease
	t := time.NewTicker(lease / 3)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), lease/3)
		err := c.e.h.Update(ctx, func(tx amem.Tx) error {
			return tx.RenewClaim(c.ref.Namespace, c.ref.ID, c.owner, c.e.c.Now().Add(lease))
		})
		cancel()
		if errors.Is(err, amem.ErrConflict) || errors.Is(err, amem.ErrNotFound) || errors.Is(err, amem.ErrClosed) {
			return // lost or gone: the final write will find out
		}
		if err != nil {
			c.e.log.Warn("renew enrichment claim", "namespace", c.ref.Namespace, "note", c.ref.ID, "err", err)
		}
	}
}

// releaseIn ends the claim inside the transaction that writes the
// enrichment's outcome, so the outcome is written only by the claim's
// holder: a lost claim is errClaimLost and the transaction rolls back.
func (c *claim) releaseIn(tx amem.Tx) error {
	err := tx.ReleaseClaim(c.ref.Namespace, c.ref.ID, c.owner)
	if errors.Is(err, amem.ErrConflict) {
		return fmt.Errorf("%w: %v", errClaimLost, err)
	}
	return err
}

// errClaimLost: the enrichment's lease ran out and another claimant took
// the note; its outcome is not written.
var errClaimLost = errors.New("enrichment claim lost")

// committed records that a transaction that released the claim
// committed.
func (c *claim) committed() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}

// end stops renewing and, unless a committed transaction released the
// claim already, releases it; then wakes this process's waiters.
func (c *claim) end() {
	close(c.stop)
	c.done.Wait()
	c.mu.Lock()
	closed := c.closed
	c.closed = true
	c.mu.Unlock()
	if !closed {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.e.h.Update(ctx, func(tx amem.Tx) error { return tx.ReleaseClaim(c.ref.Namespace, c.ref.ID, c.owner) })
		cancel()
		if err != nil && !errors.Is(err, amem.ErrConflict) && !errors.Is(err, amem.ErrNotFound) && !errors.Is(err, amem.ErrClosed) {
			// The lease still expires: the note is only delayed.
			c.e.log.Warn("release enrichment claim", "namespace", c.ref.Namespace, "note", c.ref.ID, "err", err)
		}
	}
	c.e.signalRelease(c.ref)
}

// waitRelease returns a channel closed when this process next releases a
// claim on the note. Take it before trying to claim, so a release in
// between is not missed.
func (e *Engine) waitRelease(ref amem.NoteRef) <-chan struct{} {
	key := ref.Namespace + "\x00" + ref.ID
	e.waitMu.Lock()
	defer e.waitMu.Unlock()
	ch := e.waiters[key]
	if ch == nil {
		ch = make(chan struct{})
		e.waiters[key] = ch
	}
	return ch
}

func (e *Engine) signalRelease(ref amem.NoteRef) {
	key := ref.Namespace + "\x00" + ref.ID
	e.waitMu.Lock()
	ch := e.waiters[key]
	delete(e.waiters, key)
	e.waitMu.Unlock()
	if ch != nil {
		close(ch)
	}
}
