package uselite

import (
	"fmt"
	"math"
)

type reduceOp uint8

const (
	redSum reduceOp = iota
	redMean
	redMax
	redProd
)

// reduceKernel implements Sum, Mean, Max and Prod over the axes given by
// the second input. Sums run in input order in float32, as the reference
// backend does.
type reduceKernel struct {
	op       reduceOp
	keepDims bool
}

func (k reduceKernel) run(_ *env, in, out []*tensor) error {
	x, o := in[0], out[0]
	axes, err := in[1].ints()
	if err != nil {
		return fmt.Errorf("reduction axes: %w", err)
	}
	r := x.rank
	var reduced [maxRank]bool
	for _, a := range axes {
		ax, err := normAxis(int(a), r)
		if err != nil {
			return fmt.Errorf("reduction axis %d: %w", a, err)
		}
		reduced[ax] = true
	}
	var keep, outShape [maxRank]int
	no := 0
	count := 1
	for d := 0; d < r; d++ {
		if reduced[d] {
			keep[d] = 1
			count *= x.dims[d]
			if k.keepDims {
				outShape[no] = 1
				no++
			}
			continue
		}
		keep[d] = x.dims[d]
		outShape[no] = x.dims[d]
		no++
	}
	if err := o.setLike(x.dt, outShape[:no]); err != nil {
		return err
	}
	// Output strides in the input's rank, zero along reduced axes.
	var ost, ist [maxRank]int
	stridesOf(keep[:r], &ost)
	stridesOf(x.shape(), &ist)
	for d := 0; d < r; d++ {
		if reduced[d] {
			ost[d] = 0
		}
	}
	switch x.dt {
	case dtFloat32:
		dst := o.f
		var init float32
		switch k.op {
		case redMax:
			init = float32(math.Inf(-1))
		case redProd:
			init = 1
		}
		for j := range dst {
			dst[j] = init
		}
		if x.size() > 0 {
			src := x.f
			p := makeWalk(x.shape(), ist[:r], ost[:r])
			op := k.op
			p.walk(func(_, io, oo, n, is, os int) {
				if os == 0 { // the run folds into one output
					acc := dst[oo]
					for j := 0; j < n; j++ {
						acc = foldF32(op, acc, src[io+j*is])
					}
					dst[oo] = acc
					return
				}
				for j := 0; j < n; j++ {
					dst[oo+j*os] = foldF32(op, dst[oo+j*os], src[io+j*is])
				}
			})
		}
		if k.op == redMean {
			c := float32(count)
			for j := range dst {
				dst[j] /= c
			}
		}
	case dtInt32:
		dst := o.i
		var init int32
		switch k.op {
		case redMax:
			init = math.MinInt32
		case redProd:
			init = 1
		}
		for j := range dst {
			dst[j] = init
		}
		if x.size() > 0 {
			src := x.i
			p := makeWalk(x.shape(), ist[:r], ost[:r])
			op := k.op
			p.walk(func(_, io, oo, n, is, os int) {
				for j := 0; j < n; j++ {
					a, v := dst[oo+j*os], src[io+j*is]
					switch op {
					case redSum, redMean:
						a += v
					case redMax:
						a = max(a, v)
					case redProd:
						a *= v
					}
					dst[oo+j*os] = a
				}
			})
		}
		if k.op == redMean && count > 0 {
			for j := range dst {
				dst[j] /= int32(count)
			}
		}
	default:
		return fmt.Errorf("unsupported dtype %v", x.dt)
	}
	return nil
}

func foldF32(op reduceOp, acc, v float32) float32 {
	switch op {
	case redMax:
		return maxF32(acc, v)
	case redProd:
		return acc * v
	}
	return acc + v
}

// softmaxKernel normalises over the last axis.
type softmaxKernel struct{}

func (softmaxKernel) run(_ *env, in, out []*tensor) error {
	x, o := in[0], out[0]
	if x.dt != dtFloat32 || x.rank == 0 {
		return fmt.Errorf("softmax wants a float32 tensor of rank >= 1, got %v", x)
	}
	if err := o.setF(x.shape()); err != nil {
		return err
	}
	c := x.dims[x.rank-1]
	if c == 0 {
		return nil
	}
	for off := 0; off+c <= len(o.f); off += c {
		softmaxRow(o.f[off:off+c], x.f[off:off+c])
	}
	return nil
}

func softmaxRow(dst, src []float32) {
	src = src[:len(dst)]
	m := src[0]
	for _, v := range src[1:] {
		m = max(m, v)
	}
	var sum float32
	for j, v := range src {
		e := expF32(v - m)
		dst[j] = e
		sum += e
	}
	for j := range dst {
		dst[j] /= sum
	}
}

func expF32(x float32) float32 { return float32(math.Exp(float64(x))) }
