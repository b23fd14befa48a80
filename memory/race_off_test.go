//go:build !race

package memory_test

// raceOn: see race_on_test.go.
const raceOn = false
