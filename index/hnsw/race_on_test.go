//go:build race

package hnsw

// raceOn says the race detector is on: graph building runs tens of times
// slower under it, so the tests build smaller graphs.
const raceOn = true
