//go:build (!amd64 && !arm64) || purego

package uselite

func bestKernels() kernelSet { return portableKernels }

// availableKernels lists the kernel sets this CPU can run.
func availableKernels() []kernelSet { return []kernelSet{portableKernels} }
