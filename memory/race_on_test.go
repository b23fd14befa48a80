//go:build race

package memory_test

// raceOn says the race detector is on: the SQLite driver, pure Go, runs
// tens of times slower under it, so long single-goroutine tests do less.
const raceOn = true
