//go:build unix

package mmap

import (
	"os"

	"golang.org/x/sys/unix"
)

func mapFile(f *os.File, size int) ([]byte, func([]byte), error) {
	data, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	// A search reads a few rows scattered over the file: read-ahead
	// would only pull in pages no one asked for.
	_ = unix.Madvise(data, unix.MADV_RANDOM)
	return data, func(b []byte) { _ = unix.Munmap(b) }, nil
}

func dontNeed(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
