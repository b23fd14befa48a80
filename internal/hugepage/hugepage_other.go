//go:build !linux

package hugepage

func advise([]byte) {}

func mapFloats(int) ([]byte, []float32) { return nil, nil }

func unmap([]byte) {}
