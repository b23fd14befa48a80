package amem

import "fmt"

// EmbedderMismatchError is the ErrDimensionMismatch returned when a
// namespace was embedded by another embedder than the configured one: its
// vectors and the new ones would not be comparable. It carries both
// embedders, so that a caller (the amem command) can say which one to use.
type EmbedderMismatchError struct {
	Namespace string
	// Stored is the embedder the namespace records (Embedder.Name()) and
	// StoredDimensions its vector length.
	Stored           string
	StoredDimensions int
	// Configured is the Memory's embedder, and Dimensions its length.
	Configured string
	Dimensions int
}

func (e *EmbedderMismatchError) Error() string {
	return fmt.Sprintf("%v: namespace %s holds %d-dimension vectors from %s, but the embedder is %s (%d); use that embedder or re-embed the namespace",
		ErrDimensionMismatch, e.Namespace, e.StoredDimensions, e.Stored, e.Configured, e.Dimensions)
}

// Unwrap makes errors.Is(err, ErrDimensionMismatch) hold.
func (e *EmbedderMismatchError) Unwrap() error { return ErrDimensionMismatch }
