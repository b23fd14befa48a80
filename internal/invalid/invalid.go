// Package invalid holds the engine's one error for caller input that is
// refused (amem.ErrInvalid), so that the packages a search runs through
// (search, search/conversation) return the error the root package
// documents without importing it.
package invalid

import (
	"errors"
	"fmt"
)

// Err is amem.ErrInvalid.
var Err = errors.New("invalid input")

// Errorf wraps Err with the reason.
func Errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", Err, fmt.Sprintf(format, args...))
}
