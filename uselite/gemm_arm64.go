//go:build arm64 && !purego

package uselite

// NEON (Advanced SIMD) is part of every ARMv8-A CPU, so there is nothing to
// detect.
var neonKernels = kernelSet{"neon", []int{6, 4, 2, 1}, kernelNEON}

func bestKernels() kernelSet { return neonKernels }

// availableKernels lists the kernel sets this CPU can run.
func availableKernels() []kernelSet { return []kernelSet{portableKernels, neonKernels} }

//go:noescape
func gemmNEON6(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32)

//go:noescape
func gemmNEON4(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32)

//go:noescape
func gemmNEON2(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32)

//go:noescape
func gemmNEON1(a *float32, lda int, panel *float32, k int, c *float32, ldc int, bias *float32)

func kernelNEON(rows int, a []float32, lda int, panel []float32, k int, c []float32, ldc int, bias []float32, relu bool) {
	bp := checkBlock(rows, a, lda, panel, k, c, ldc, bias)
	switch rows {
	case 6:
		gemmNEON6(&a[0], lda, &panel[0], k, &c[0], ldc, bp)
	case 4:
		gemmNEON4(&a[0], lda, &panel[0], k, &c[0], ldc, bp)
	case 2:
		gemmNEON2(&a[0], lda, &panel[0], k, &c[0], ldc, bp)
	case 1:
		gemmNEON1(&a[0], lda, &panel[0], k, &c[0], ldc, bp)
	default:
		panic("gemm: no NEON kernel for this block height")
	}
	if relu { // rare (one product in five), so done here rather than in assembly
		for r := 0; r < rows; r++ {
			row := c[r*ldc : r*ldc+panelWidth]
			for j, v := range row {
				row[j] = max(v, 0)
			}
		}
	}
}
