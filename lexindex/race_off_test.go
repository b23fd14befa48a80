//go:build !race

package lexindex

const raceEnabled = false
