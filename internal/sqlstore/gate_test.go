package sqlstore

import (
	"errors"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

func TestGate(t *testing.T) {
	var g Gate
	if err := g.Enter(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan bool)
	go func() { closed <- g.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned while a transaction ran")
	case <-time.After(20 * time.Millisecond):
	}
	g.Leave()
	if !<-closed {
		t.Error("the first Close reported the gate closed already")
	}
	if g.Close() {
		t.Error("a second Close reported closing the gate")
	}
	if err := g.Enter(); !errors.Is(err, amem.ErrClosed) {
		t.Errorf("Enter after Close: %v, want amem.ErrClosed", err)
	}
}

func TestHealth(t *testing.T) {
	h := Health{Every: time.Hour, Sticky: "damaged"}
	probes := 0
	probe := func() error { probes++; h.Set(nil); return nil }
	if err := h.Check(probe); err != nil || probes != 1 {
		t.Fatalf("first Check: %v after %d probes", err, probes)
	}
	if err := h.Check(probe); err != nil || probes != 1 {
		t.Errorf("a fresh verdict was probed again: %v, %d probes", err, probes)
	}

	full := &amem.HealthError{Reason: "full"}
	h.Set(full)
	if err, fresh := h.Verdict(); err != full || !fresh {
		t.Errorf("Verdict after Set: %v, %v", err, fresh)
	}
	h.Set(nil)
	if err, _ := h.Verdict(); err != nil {
		t.Errorf("a verdict that is not sticky stayed: %v", err)
	}

	damaged := &amem.HealthError{Reason: "damaged"}
	h.Set(damaged)
	h.Set(nil)
	if err, fresh := h.Verdict(); err != damaged || !fresh {
		t.Errorf("the sticky verdict went: %v, %v", err, fresh)
	}
}
