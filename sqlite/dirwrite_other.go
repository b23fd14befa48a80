//go:build !unix

package sqlite

// dirUnwritable is unknown here: the checks run as on a writable
// directory.
var dirUnwritable = func(string) bool { return false }
