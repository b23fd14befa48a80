// Package invalid wraps the engine's one error for caller input that is
// refused, amem.ErrInvalid, with a reason, for the packages beneath the
// domain that refuse input (search, search/conversation, memory,
// transfer).
package invalid

import (
	"fmt"

	"github.com/amem-dev/amem"
)

// Err is amem.ErrInvalid.
var Err = amem.ErrInvalid

// Errorf wraps Err with the reason.
func Errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", Err, fmt.Sprintf(format, args...))
}
