package memory

import (
	"errors"
	"testing"

	"github.com/amem-dev/amem"
)

// A one-note batch's error loses its index, not what wraps it: a store's
// health verdict around it stays findable.
func TestUnwrapBatchKeepsHealth(t *testing.T) {
	cause := errors.New("connection reset")
	got := unwrapBatch(&amem.HealthError{Reason: "database unreachable", Err: &batchError{index: 0, err: cause}})
	var he *amem.HealthError
	if !errors.As(got, &he) || !errors.Is(got, cause) || got.Error() != "database unreachable: connection reset" {
		t.Fatalf("unwrapBatch = %v (%T)", got, got)
	}
	if got := unwrapBatch(&batchError{index: 0, err: cause}); got != cause {
		t.Fatalf("a bare batch error: %v", got)
	}
}
