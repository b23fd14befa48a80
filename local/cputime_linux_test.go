package local

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has used (the caller
// locks its goroutine to the thread): on a machine shared with other
// work, a search's own cost where wall time also counts the waits for a
// core. CLOCK_THREAD_CPUTIME_ID, not getrusage, whose per-thread times
// move in scheduler ticks (4 ms), longer than a search.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
