// Package kernel is amem's per-process index cache: for each namespace a
// Space holding its vector index (an exact Flat, or an approximate hnsw
// index built in the background past Options.ApproximateFrom notes) and
// its full-text index (lexindex), loaded from the store and kept caught
// up with the store's change feed before every read (Kernel.Fresh), so
// that any number of processes sharing a store see one memory.
// Namespaces are evicted least recently used past Options.IndexBudget.
// Approximate and full-text indexes are saved under Options.IndexDir so
// that a restart reads them instead of rebuilding; a saved file the store
// does not bear out is dropped and rebuilt.
//
// Background work (builds, files written again, stale files deleted)
// runs on one goroutine New starts and Close stops; a read only asks for
// it. Saved files are opened, mapped, read and checked only by the file
// readers (readers.go), goroutines New starts and Close stops too: a
// load asks one and waits, honouring its context, so a search opens no
// index file; after Close the request fails with amem.ErrClosed and
// nothing is opened. Close itself writes the indexes that changed.
//
// Counters count the indexes built and the saved ones read, for
// monitoring (the server's /metrics). Tests hold the background work
// through internal/kernelhook and export_test.go, never through a field
// of Kernel or a function the kernel exports for them.
//
// Package memory owns a Kernel: it calls Fresh before a search or a
// curator's candidates, Advance after a write, and Close when it closes.
package kernel
