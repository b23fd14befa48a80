//go:build !race

package amem_test

// raceOn: see race_on_test.go.
const raceOn = false
