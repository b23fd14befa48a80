// Package transfer moves notes in and out of a memory as JSON lines:
// Export writes every note with its links, history and embedder; Import
// restores exported records as they were and adds plain lines as new
// notes, all in one transaction or nothing, after checking every line
// (DryRun counts without writing). It reaches the memory only through
// the small interfaces of host.go, by ability (Export needs a Reader,
// Import a Host: Reader, Checker, Embedding, Writer and Enricher), which
// package memory implements; memory.Export and memory.Import are its
// entry points.
package transfer
