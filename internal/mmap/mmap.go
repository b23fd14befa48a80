// Package mmap maps a file read-only into memory: amem keeps a large
// namespace's float vectors in a file beside its graph and reads the few
// a search re-ranks through the page cache, so that they cost no heap.
// Where memory mapping is not available the file is read into memory
// instead, which is correct and only costs what mapping saves.
package mmap

import (
	"fmt"
	"os"
	"runtime"
)

// Map is a read-only view of a file's bytes. It stays valid until the
// Map is no longer reachable: the unmapping is left to a cleanup that
// runs after the last user is gone, since a search may still read a
// namespace's vectors after the namespace was dropped or reloaded.
// Replacing the file by a rename leaves the view intact; truncating it in
// place does not (a read past the new end faults), so amem never does.
type Map struct {
	data    []byte
	release func([]byte)
}

// Open maps the whole of path.
func Open(path string) (*Map, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size != int64(int(size)) {
		return nil, fmt.Errorf("mmap %s: %d bytes do not fit the address space", path, size)
	}
	if size == 0 {
		return &Map{data: []byte{}}, nil
	}
	data, unmap, err := mapFile(f, int(size))
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	m := &Map{data: data}
	if unmap != nil {
		m.release = dontNeed
	}
	if unmap != nil {
		runtime.AddCleanup(m, func(data []byte) { unmap(data) }, data)
	}
	return m, nil
}

// Release drops the pages read so far from the process's resident set
// (they stay in the page cache, and come back on the next read): after a
// check that read the whole file once, the process holds only what its
// searches read.
func (m *Map) Release() {
	if m.release != nil && len(m.data) > 0 {
		m.release(m.data)
	}
}

// Bytes returns the file's bytes; they must not be written to. Callers
// keep the Map reachable for as long as they use them.
func (m *Map) Bytes() []byte { return m.data }

// Len is the file's size.
func (m *Map) Len() int { return len(m.data) }
