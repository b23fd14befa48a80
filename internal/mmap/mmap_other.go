//go:build !unix

package mmap

import (
	"io"
	"os"
)

// mapFile reads the file into memory where mapping is unavailable.
func mapFile(f *os.File, size int) ([]byte, func([]byte), error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, nil, nil
}

func dontNeed([]byte) {}
