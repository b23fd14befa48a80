package memory

import (
	"context"
	"io"

	"github.com/amem-dev/amem/transfer"
)

// Export and import are package transfer's; these are the Memory's entry
// points to it, and its types under their old names.

// Record is one line of an export (transfer.Record).
type Record = transfer.Record

// ImportOptions configure Import (transfer.ImportOptions).
type ImportOptions = transfer.ImportOptions

// ImportStats says what Import did (transfer.ImportStats).
type ImportStats = transfer.ImportStats

// ImportError is Import's answer to bad lines (transfer.ImportError).
type ImportError = transfer.ImportError

// LineError is one bad line of an import (transfer.LineError).
type LineError = transfer.LineError

// Export writes every note of the namespace (all namespaces when ns is
// empty) as JSON lines, in namespace then ID order. Importing the output
// into an empty store gives the same notes, links, versions and times.
// See transfer.Export.
func (m *Memory) Export(ctx context.Context, w io.Writer, ns string) (int, error) {
	return transfer.Export(ctx, transferHost{m}, w, ns)
}

// Import reads JSON lines and stores them in one transaction: all of them
// or, on any error, nothing. Exported records are restored as they were;
// plain lines become new notes, except duplicates, enriched after the
// transaction as Add would. See transfer.Import.
func (m *Memory) Import(ctx context.Context, r io.Reader, opts ImportOptions) (ImportStats, error) {
	return transfer.Import(ctx, transferHost{m}, r, opts)
}
