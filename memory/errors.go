package memory

import "github.com/amem-dev/amem/internal/invalid"

// invalidf is amem.ErrInvalid with the reason.
func invalidf(format string, args ...any) error { return invalid.Errorf(format, args...) }
