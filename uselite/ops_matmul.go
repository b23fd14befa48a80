package uselite

import (
	"fmt"
	"math"
)

// env is per-worker scratch shared by the kernels of one plan run.
type env struct {
	gemm gemmScratch
	pack packedMatrix // a non-constant right operand, packed for the micro-kernels
}

// kernel runs one op: it reads in and sizes and fills out. Kernels never
// write to their inputs, which lets shape-only ops share buffers.
type kernel interface {
	run(e *env, in, out []*tensor) error
}

// matMulKernel is the unfused MatMul: plain loops, used when the right
// operand is not a constant (or fusion is off).
type matMulKernel struct{ transA, transB bool }

func (k matMulKernel) run(_ *env, in, out []*tensor) error {
	a, b := in[0], in[1]
	if a.dt != dtFloat32 || b.dt != dtFloat32 || a.rank != 2 || b.rank != 2 {
		return fmt.Errorf("matmul wants two float32 matrices, got %v and %v", a, b)
	}
	m, ka := a.dims[0], a.dims[1]
	if k.transA {
		m, ka = ka, m
	}
	kb, n := b.dims[0], b.dims[1]
	if k.transB {
		kb, n = n, kb
	}
	if ka != kb {
		return fmt.Errorf("matmul shapes %v and %v do not agree", a.shape(), b.shape())
	}
	o := out[0]
	if err := o.setF([]int{m, n}); err != nil {
		return err
	}
	matMulStrided(o.f, a.f, b.f, m, n, ka, k.transA, k.transB)
	return nil
}

// matMulStrided computes c (m x n) = op(a) · op(b) for row-major a and b,
// op being an optional transpose.
func matMulStrided(c, a, b []float32, m, n, kk int, transA, transB bool) {
	clear(c[:m*n])
	for i := 0; i < m; i++ {
		row := c[i*n : (i+1)*n]
		for p := 0; p < kk; p++ {
			var av float32
			if transA {
				av = a[p*m+i]
			} else {
				av = a[i*kk+p]
			}
			if transB {
				for j := range row {
					row[j] += av * b[j*kk+p]
				}
				continue
			}
			axpy(row, b[p*n:(p+1)*n], av)
		}
	}
}

// axpy computes y += alpha·x.
func axpy(y, x []float32, alpha float32) {
	x = x[:len(y)]
	for j := range y {
		y[j] += alpha * x[j]
	}
}

// dot returns the inner product of x and y (len(x) <= len(y)), with four
// partial sums so the adds do not wait on each other.
func dot(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(x); j += 4 {
		s0 += x[j] * y[j]
		s1 += x[j+1] * y[j+1]
		s2 += x[j+2] * y[j+2]
		s3 += x[j+3] * y[j+3]
	}
	for ; j < len(x); j++ {
		s0 += x[j] * y[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// batchMatMulKernel multiplies the last two dimensions, broadcasting the
// leading (batch) dimensions: in this model the attention scores (q·kᵀ)
// and the weighted values, per head. With SIMD micro-kernels the right
// operand is packed on the fly and multiplied like a weight matrix;
// otherwise a·bᵀ becomes row dot products and a·b row updates.
type batchMatMulKernel struct{ adjX, adjY bool }

func (k batchMatMulKernel) run(e *env, in, out []*tensor) error {
	a, b := in[0], in[1]
	if a.dt != dtFloat32 || b.dt != dtFloat32 || a.rank < 2 || b.rank < 2 {
		return fmt.Errorf("batch_matmul wants float32 tensors of rank >= 2, got %v and %v", a, b)
	}
	m, ka := a.dims[a.rank-2], a.dims[a.rank-1]
	if k.adjX {
		m, ka = ka, m
	}
	kb, n := b.dims[b.rank-2], b.dims[b.rank-1]
	if k.adjY {
		kb, n = n, kb
	}
	if ka != kb {
		return fmt.Errorf("batch_matmul shapes %v and %v do not agree", a.shape(), b.shape())
	}
	var shape [maxRank]int
	r, walk, err := broadcast(a.dims[:a.rank-2], b.dims[:b.rank-2], &shape)
	if err != nil {
		return fmt.Errorf("batch_matmul: %w", err)
	}
	shape[r], shape[r+1] = m, n
	o := out[0]
	if err := o.setF(shape[:r+2]); err != nil {
		return err
	}
	sa, sb, so := a.dims[a.rank-2]*a.dims[a.rank-1], b.dims[b.rank-2]*b.dims[b.rank-1], m*n
	if o.size() == 0 {
		return nil
	}
	adjX, adjY := k.adjX, k.adjY
	simd := kernels.name != portableKernels.name
	walk.walk(func(dst, ao, bo, cnt, as, bs int) {
		for j := 0; j < cnt; j++ {
			am := a.f[(ao+j*as)*sa : (ao+j*as+1)*sa]
			bm := b.f[(bo+j*bs)*sb : (bo+j*bs+1)*sb]
			cm := o.f[(dst+j)*so : (dst+j+1)*so]
			switch {
			case simd && !adjX && ka > 0:
				e.pack.repack(bm, ka, n, adjY)
				mulPacked(cm, am, m, &e.pack, nil, false, &e.gemm)
			case !adjX && adjY:
				for i := 0; i < m; i++ {
					ar := am[i*ka : (i+1)*ka]
					for q := 0; q < n; q++ {
						cm[i*n+q] = dot(ar, bm[q*ka:(q+1)*ka])
					}
				}
			case !adjX && !adjY:
				clear(cm)
				for i := 0; i < m; i++ {
					row := cm[i*n : (i+1)*n]
					for p, av := range am[i*ka : (i+1)*ka] {
						axpy(row, bm[p*n:(p+1)*n], av)
					}
				}
			default:
				matMulStrided(cm, am, bm, m, n, ka, adjX, adjY)
			}
		}
	})
	return nil
}

// conv2DKernel is the unfused Conv2D. Only what a TF-Hub text model uses is
// supported: NHWC, 1x1 filters, unit strides and dilations, which make the
// convolution a matrix product over the channel dimension.
type conv2DKernel struct{}

func (conv2DKernel) run(_ *env, in, out []*tensor) error {
	x, w := in[0], in[1]
	if x.dt != dtFloat32 || w.dt != dtFloat32 || x.rank != 4 || w.rank != 4 || w.dims[0] != 1 || w.dims[1] != 1 {
		return fmt.Errorf("conv2d supports NHWC input with a 1x1 filter, got %v and %v", x, w)
	}
	cin, cout := w.dims[2], w.dims[3]
	if x.dims[3] != cin {
		return fmt.Errorf("conv2d input channels %d, filter wants %d", x.dims[3], cin)
	}
	o := out[0]
	if err := o.setF([]int{x.dims[0], x.dims[1], x.dims[2], cout}); err != nil {
		return err
	}
	matMulStrided(o.f, x.f, w.f, x.size()/cin, cout, cin, false, false)
	return nil
}

type biasAddKernel struct{}

func (biasAddKernel) run(_ *env, in, out []*tensor) error {
	x, b := in[0], in[1]
	if x.dt != dtFloat32 || b.dt != dtFloat32 || b.rank != 1 || x.rank == 0 || x.dims[x.rank-1] != b.dims[0] {
		return fmt.Errorf("bias_add wants [..., %d] float32, got %v", b.size(), x)
	}
	o := out[0]
	if err := o.setF(x.shape()); err != nil {
		return err
	}
	c := b.dims[0]
	for off := 0; off+c <= len(o.f); off += c {
		binF32(opAdd, o.f[off:off+c], x.f[off:], 1, b.f, 1)
	}
	return nil
}

// denseKernel is the fused form of MatMul or 1x1 Conv2D against a constant
// matrix, with the following BiasAdd and Relu folded in. It maps
// [..., k] to [..., n].
type denseKernel struct {
	w    *packedMatrix
	bias []float32 // padded to whole panels, or nil
	relu bool
	// conv keeps the 4-D output of a Conv2D; MatMul output is 2-D anyway.
	conv bool
}

func (k *denseKernel) run(e *env, in, out []*tensor) error {
	x := in[0]
	if x.dt != dtFloat32 || x.rank == 0 || x.dims[x.rank-1] != k.w.k {
		return fmt.Errorf("dense wants [..., %d] float32, got %v", k.w.k, x)
	}
	if !k.conv && x.rank != 2 {
		return fmt.Errorf("matmul wants a matrix, got %v", x)
	}
	var shape [maxRank]int
	copy(shape[:], x.shape())
	shape[x.rank-1] = k.w.n
	o := out[0]
	if err := o.setF(shape[:x.rank]); err != nil {
		return err
	}
	rows := x.size() / k.w.k
	mulPacked(o.f, x.f, rows, k.w, k.bias, k.relu, &e.gemm)
	return nil
}

// layerNormKernel is the fused form of the graph's layer normalisation
// (Mean, Sub, Square, Mean, Add eps, Rsqrt, Mul gamma, Mul, Add beta) over
// the last dimension, computed in the same order of operations.
type layerNormKernel struct {
	gamma, beta []float32
	eps         float32
}

func (k *layerNormKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	c := len(k.gamma)
	if x.dt != dtFloat32 || x.rank == 0 || x.dims[x.rank-1] != c {
		return fmt.Errorf("layer norm wants [..., %d] float32, got %v", c, x)
	}
	o := out[0]
	if err := o.setF(x.shape()); err != nil {
		return err
	}
	gamma, beta := k.gamma[:c], k.beta[:c]
	for off := 0; off+c <= len(o.f); off += c {
		src, dst := x.f[off:off+c], o.f[off:off+c]
		mean := sum8(src) / float32(c)
		for j, v := range src {
			dst[j] = v - mean
		}
		variance := sumSquares8(dst) / float32(c)
		r := float32(1 / math.Sqrt(float64(variance+k.eps)))
		for j, d := range dst {
			dst[j] = gamma[j]*r*d + beta[j]
		}
	}
	return nil
}

// sum8 adds x with eight partial sums.
func sum8(x []float32) float32 {
	var s [8]float32
	j := 0
	for ; j+8 <= len(x); j += 8 {
		v := x[j : j+8 : j+8]
		s[0] += v[0]
		s[1] += v[1]
		s[2] += v[2]
		s[3] += v[3]
		s[4] += v[4]
		s[5] += v[5]
		s[6] += v[6]
		s[7] += v[7]
	}
	for ; j < len(x); j++ {
		s[0] += x[j]
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

func sumSquares8(x []float32) float32 {
	var s [8]float32
	j := 0
	for ; j+8 <= len(x); j += 8 {
		v := x[j : j+8 : j+8]
		s[0] += v[0] * v[0]
		s[1] += v[1] * v[1]
		s[2] += v[2] * v[2]
		s[3] += v[3] * v[3]
		s[4] += v[4] * v[4]
		s[5] += v[5] * v[5]
		s[6] += v[6] * v[6]
		s[7] += v[7] * v[7]
	}
	for ; j < len(x); j++ {
		s[0] += x[j] * x[j]
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}
