package hugepage

import "golang.org/x/sys/unix"

func advise(b []byte) {
	// An error (a kernel without THP, say) leaves the pages as they were.
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}
