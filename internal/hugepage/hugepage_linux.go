package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

func advise(b []byte) {
	// An error (a kernel without THP, say) leaves the pages as they were.
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}

func mapFloats(n int) ([]byte, []float32) {
	mem, err := unix.Mmap(-1, 0, n*4, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil
	}
	advise(mem)
	return mem, unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(mem))), n)
}

func unmap(mem []byte) { _ = unix.Munmap(mem) }
