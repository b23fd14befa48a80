//go:build amd64 && !purego

package uselite

// CPU features, read once. AVX2 needs FMA and the OS saving YMM state;
// AVX-512 needs the OS saving the opmask and ZMM state as well.
var (
	hasAVX2FMA, hasAVX512 = detectCPU()
)

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv0() (lo, hi uint32)

//go:noescape
func gemmAVX6(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func gemmAVX4(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func gemmAVX2(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func gemmAVX1(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func gemm512x12(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func gemm512x8(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func gemm512x4(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func gemm512x2(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func gemm512x1(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32, relu bool)

func detectCPU() (avx2fma, avx512 bool) {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false, false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false, false
	}
	xcr0, _ := xgetbv0()
	if xcr0&0x6 != 0x6 { // XMM and YMM state
		return false, false
	}
	_, b7, _, _ := cpuid(7, 0)
	avx2fma = b7&(1<<5) != 0
	avx512 = avx2fma && b7&(1<<16) != 0 && xcr0&0xe0 == 0xe0 // AVX512F; opmask, ZMM_Hi256, Hi16_ZMM state
	return avx2fma, avx512
}

var (
	avx512Kernels = kernelSet{"avx512", []int{12, 8, 4, 2, 1}, kernel512}
	avx2Kernels   = kernelSet{"avx2", []int{6, 4, 2, 1}, kernelAVX2}
)

func bestKernels() kernelSet {
	switch {
	case hasAVX512:
		return avx512Kernels
	case hasAVX2FMA:
		return avx2Kernels
	}
	return portableKernels
}

// availableKernels lists the kernel sets this CPU can run.
func availableKernels() []kernelSet {
	ks := []kernelSet{portableKernels}
	if hasAVX2FMA {
		ks = append(ks, avx2Kernels)
	}
	if hasAVX512 {
		ks = append(ks, avx512Kernels)
	}
	return ks
}

func kernelAVX2(rows int, a []float32, lda int, panel []float32, k int, c []float32, ldc int, bias []float32, relu bool) {
	bp := checkBlock(rows, a, lda, panel, k, c, ldc, bias)
	switch rows {
	case 6:
		gemmAVX6(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	case 4:
		gemmAVX4(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	case 2:
		gemmAVX2(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	case 1:
		gemmAVX1(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	default:
		panic("gemm: no AVX2 kernel for this block height")
	}
}

func kernel512(rows int, a []float32, lda int, panel []float32, k int, c []float32, ldc int, bias []float32, relu bool) {
	bp := checkBlock(rows, a, lda, panel, k, c, ldc, bias)
	switch rows {
	case 12:
		gemm512x12(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	case 8:
		gemm512x8(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	case 4:
		gemm512x4(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	case 2:
		gemm512x2(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	case 1:
		gemm512x1(&a[0], lda, &panel[0], k, &c[0], ldc, bp, relu)
	default:
		panic("gemm: no AVX-512 kernel for this block height")
	}
}
