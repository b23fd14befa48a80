// Package kernelhook holds the hooks by which tests hold the kernel's
// background work: package kernel reads them, only tests set them
// (package memory's export_test.go), so that no Kernel carries a field
// for tests. A hook is shared by every kernel of the process: a test
// that sets one must not run in parallel with another kernel's test,
// and clears it when it ends.
package kernelhook

import "sync/atomic"

// Build, when set, runs at the start of each background build of an
// approximate index, on the kernel's background goroutine, with the
// build's namespace: a test holds the build there.
var Build atomic.Pointer[func(ns string)]

// ResaveMin, when above 0, replaces the floor (4,096) of the float
// vectors an approximate index holds on the heap before its float file
// is written again, so that a test reaches it.
var ResaveMin atomic.Int64
