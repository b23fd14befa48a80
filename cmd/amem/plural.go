package main

import "strconv"

// count is n and noun, plural unless n is 1: "1 note", "2 notes", "0
// notes". Every noun the CLI counts takes an s.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
