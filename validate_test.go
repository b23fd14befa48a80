package amem_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
)

// A namespace is 1-128 of letters, digits and . _ - : @, and not a path
// segment ("." or ".."), which no URL or UI page could name.
func TestValidNamespace(t *testing.T) {
	for _, ns := range []string{"a", "alice@example.com", "team:ops", "v1.2_x-y", "...", ".a", strings.Repeat("n", amem.MaxNamespaceLen)} {
		if err := amem.ValidNamespace(ns); err != nil {
			t.Errorf("%q: %v", ns, err)
		}
	}
	for _, ns := range []string{"", ".", "..", "a/b", "a b", "zoë", strings.Repeat("n", amem.MaxNamespaceLen+1)} {
		if err := amem.ValidNamespace(ns); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", ns, err)
		}
	}
}
