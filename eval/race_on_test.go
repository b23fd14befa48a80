//go:build race

package eval

const raceOn = true
