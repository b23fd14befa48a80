package uselite

// Matrix multiplication against a constant right-hand side, the bulk of
// the model's arithmetic (about 4.7 M multiply-adds per token).
//
// The constant matrix is repacked once, at load, into column panels of
// panelWidth floats: panel p holds rows 0..k-1 of columns
// [p*panelWidth, (p+1)*panelWidth) one after another, so the inner loop
// streams it sequentially. A micro-kernel keeps a block of up to
// maxBlockRows rows x panelWidth columns of the result in registers and
// walks k once; for each panel the blocks of rows follow one another, so
// the panel is read from memory once and then from cache. On amd64 the
// micro-kernels are assembly (AVX-512 in gemm512_amd64.s, else AVX2+FMA in
// gemm_amd64.s, chosen at start-up); elsewhere, and with the purego build
// tag, they are the portable Go below.

const (
	panelWidth = 16
	// maxBlockRows is the tallest block any micro-kernel computes.
	maxBlockRows = 12
)

// kernelSet is a family of micro-kernels. run computes a rows x
// panelWidth block: c[r][j] = bias[j] + sum_k a[r*lda+k]*panel[k*panelWidth+j]
// (then max(0, ·) if relu), for rows in heights (tallest first). Kernels
// may add the products in any order.
type kernelSet struct {
	name    string
	heights []int
	run     func(rows int, a []float32, lda int, panel []float32, k int, c []float32, ldc int, bias []float32, relu bool)
}

var portableKernels = kernelSet{"go", []int{2, 1}, microKernelGo}

// kernels is the fastest set this CPU runs (see gemm_amd64.go).
var kernels = bestKernels()

// blockHeight picks the block height for the remaining rows.
func (ks *kernelSet) blockHeight(left int) int {
	for _, h := range ks.heights {
		if h <= left {
			return h
		}
	}
	return 1
}

// checkBlock makes the Go bounds checks the assembly relies on: the block
// lies inside a, panel and c. It panics (caught by plan.run) rather than
// let the assembly touch memory it does not own.
func checkBlock(rows int, a []float32, lda int, panel []float32, k int, c []float32, ldc int, bias []float32) *float32 {
	if k < 1 {
		panic("gemm: empty inner dimension")
	}
	_ = a[(rows-1)*lda+k-1]
	_ = panel[k*panelWidth-1]
	_ = c[(rows-1)*ldc+panelWidth-1]
	if bias == nil {
		return nil
	}
	_ = bias[panelWidth-1]
	return &bias[0]
}

// packedMatrix is a k x n matrix in panel order, padded with zero columns
// to a whole number of panels.
type packedMatrix struct {
	k, n   int
	panels []float32
}

func (p *packedMatrix) numPanels() int { return (p.n + panelWidth - 1) / panelWidth }

// packMatrix packs w, a k x n row-major matrix (or n x k when transposed).
func packMatrix(w []float32, k, n int, transposed bool) *packedMatrix {
	p := &packedMatrix{}
	p.repack(w, k, n, transposed)
	return p
}

// repack packs w into p, reusing p's buffer.
func (p *packedMatrix) repack(w []float32, k, n int, transposed bool) {
	p.k, p.n = k, n
	np := p.numPanels()
	p.panels = growF32(p.panels, np*k*panelWidth)
	if n%panelWidth != 0 {
		clear(p.panels[(np-1)*k*panelWidth:]) // the padding columns
	}
	for pi := 0; pi < np; pi++ {
		panel := p.panels[pi*k*panelWidth : (pi+1)*k*panelWidth]
		col0 := pi * panelWidth
		width := min(panelWidth, n-col0)
		for kk := 0; kk < k; kk++ {
			dst := panel[kk*panelWidth : kk*panelWidth+width]
			if !transposed {
				copy(dst, w[kk*n+col0:kk*n+col0+width])
				continue
			}
			for j := range dst {
				dst[j] = w[(col0+j)*k+kk]
			}
		}
	}
}

// padBias returns bias padded with zeros to a whole number of panels, or
// nil for no bias.
func padBias(bias []float32, p *packedMatrix) []float32 {
	if bias == nil {
		return nil
	}
	out := make([]float32, p.numPanels()*panelWidth)
	copy(out, bias)
	return out
}

// gemmScratch holds the result block for the last panel when n is not a
// multiple of the panel width.
type gemmScratch struct {
	c []float32
}

// mulPacked computes c = a·b (+ bias, then max(0, ·) if relu) where a is
// m x b.k row-major and c is m x b.n row-major. bias is nil or padded.
func mulPacked(c, a []float32, m int, b *packedMatrix, bias []float32, relu bool, s *gemmScratch) {
	mulPackedWith(&kernels, c, a, m, b, bias, relu, s)
}

func mulPackedWith(ks *kernelSet, c, a []float32, m int, b *packedMatrix, bias []float32, relu bool, s *gemmScratch) {
	k, n := b.k, b.n
	if m == 0 || n == 0 {
		return
	}
	c = c[:m*n]
	a = a[:m*k]
	np := b.numPanels()
	fullPanels := n / panelWidth
	if k == 0 {
		for i := 0; i < m; i++ {
			row := c[i*n : (i+1)*n]
			for j := range row {
				v := float32(0)
				if bias != nil {
					v = bias[j]
				}
				if relu {
					v = max(v, 0)
				}
				row[j] = v
			}
		}
		return
	}
	s.c = growF32(s.c, maxBlockRows*panelWidth)
	for pi := 0; pi < np; pi++ {
		panel := b.panels[pi*k*panelWidth : (pi+1)*k*panelWidth]
		var bp []float32
		if bias != nil {
			bp = bias[pi*panelWidth : (pi+1)*panelWidth]
		}
		col := pi * panelWidth
		width := min(panelWidth, n-col)
		for i := 0; i < m; {
			rows := ks.blockHeight(m - i)
			if pi < fullPanels {
				ks.run(rows, a[i*k:], k, panel, k, c[i*n+col:], n, bp, relu)
			} else {
				// Ragged last panel: compute a full-width block aside and
				// copy the columns that exist.
				ks.run(rows, a[i*k:], k, panel, k, s.c, panelWidth, bp, relu)
				for r := 0; r < rows; r++ {
					copy(c[(i+r)*n+col:(i+r)*n+col+width], s.c[r*panelWidth:r*panelWidth+width])
				}
			}
			i += rows
		}
	}
}

// microKernelGo is the portable micro-kernel (see kernelSet). Go does not
// vectorise, so this runs at a tenth of the assembly's speed; it works on
// two rows by four columns at a time, the widest block the Go compiler
// keeps in registers without spilling.
func microKernelGo(rows int, a []float32, lda int, panel []float32, k int, c []float32, ldc int, bias []float32, relu bool) {
	panel = panel[:k*panelWidth]
	for r := 0; r < rows; r += 2 {
		a0 := a[r*lda : r*lda+k]
		a1 := a0 // a lone last row is computed twice and stored once
		if r+1 < rows {
			a1 = a[(r+1)*lda : (r+1)*lda+k]
		}
		for j := 0; j < panelWidth; j += 4 {
			var c00, c01, c02, c03, c10, c11, c12, c13 float32
			if bias != nil {
				b := bias[j : j+4 : j+4]
				c00, c01, c02, c03 = b[0], b[1], b[2], b[3]
				c10, c11, c12, c13 = c00, c01, c02, c03
			}
			off := j
			for kk, x := range a0 {
				y := a1[kk]
				q := panel[off : off+4 : off+4]
				q0, q1, q2, q3 := q[0], q[1], q[2], q[3]
				c00 += x * q0
				c01 += x * q1
				c02 += x * q2
				c03 += x * q3
				c10 += y * q0
				c11 += y * q1
				c12 += y * q2
				c13 += y * q3
				off += panelWidth
			}
			if relu {
				c00, c01, c02, c03 = max(c00, 0), max(c01, 0), max(c02, 0), max(c03, 0)
				c10, c11, c12, c13 = max(c10, 0), max(c11, 0), max(c12, 0), max(c13, 0)
			}
			o := c[r*ldc+j : r*ldc+j+4 : r*ldc+j+4]
			o[0], o[1], o[2], o[3] = c00, c01, c02, c03
			if r+1 < rows {
				o = c[(r+1)*ldc+j : (r+1)*ldc+j+4 : (r+1)*ldc+j+4]
				o[0], o[1], o[2], o[3] = c10, c11, c12, c13
			}
		}
	}
}
