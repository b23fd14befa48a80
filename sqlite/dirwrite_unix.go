//go:build unix

package sqlite

import "golang.org/x/sys/unix"

// dirUnwritable reports whether files cannot be created in dir: a
// read-only file system, an immutable directory (which binds root too)
// or permissions. access(2) answers without creating anything.
var dirUnwritable = func(dir string) bool {
	return unix.Access(dir, unix.W_OK) != nil
}
