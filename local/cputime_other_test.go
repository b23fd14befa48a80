//go:build !linux

package local

import "time"

// threadCPU is not measured off Linux (no per-thread rusage).
func threadCPU() (time.Duration, bool) { return 0, false }
