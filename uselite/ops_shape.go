package uselite

import (
	"fmt"
)

// Shape manipulation ops. The ops that only reinterpret a shape (Reshape,
// ExpandDims, Squeeze, Identity) share their input's buffer.

// copyElems copies n elements from src[sOff:] to dst[dOff:]; both have the
// same dtype.
func copyElems(dst *tensor, dOff int, src *tensor, sOff, n int) {
	switch src.dt {
	case dtFloat32:
		copy(dst.f[dOff:dOff+n], src.f[sOff:sOff+n])
	case dtInt32:
		copy(dst.i[dOff:dOff+n], src.i[sOff:sOff+n])
	case dtBool:
		copy(dst.b[dOff:dOff+n], src.b[sOff:sOff+n])
	}
}

// stridedCopy fills o (already sized, contiguous) by walking dims over src
// starting at offset base with the given source strides.
func stridedCopy(o, src *tensor, dims, sstr []int, base int) {
	if shapeSize(dims) == 0 {
		return
	}
	var ost [maxRank]int
	stridesOf(dims, &ost)
	p := makeWalk(dims, sstr, ost[:len(dims)])
	p.walk(func(dst, so, _, n, ss, _ int) {
		so += base
		if ss == 1 {
			copyElems(o, dst, src, so, n)
			return
		}
		switch src.dt {
		case dtFloat32:
			for j := 0; j < n; j++ {
				o.f[dst+j] = src.f[so+j*ss]
			}
		case dtInt32:
			for j := 0; j < n; j++ {
				o.i[dst+j] = src.i[so+j*ss]
			}
		case dtBool:
			for j := 0; j < n; j++ {
				o.b[dst+j] = src.b[so+j*ss]
			}
		}
	})
}

type shapeKernel struct{}

func (shapeKernel) run(_ *env, in, out []*tensor) error {
	x, o := in[0], out[0]
	if err := o.setI([]int{x.rank}); err != nil {
		return err
	}
	for d := 0; d < x.rank; d++ {
		o.i[d] = int32(x.dims[d])
	}
	return nil
}

type reshapeKernel struct{}

func (reshapeKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	want, err := in[1].ints()
	if err != nil {
		return fmt.Errorf("reshape target: %w", err)
	}
	if len(want) > maxRank {
		return fmt.Errorf("reshape to rank %d exceeds the supported %d", len(want), maxRank)
	}
	var shape [maxRank]int
	infer := -1
	known := 1
	for d, v := range want {
		switch {
		case v == -1 && infer < 0:
			infer = d
		case v < 0:
			return fmt.Errorf("reshape target %v is invalid", want)
		default:
			shape[d] = int(v)
			known *= int(v)
		}
	}
	if infer >= 0 {
		if known == 0 || x.size()%known != 0 {
			return fmt.Errorf("cannot reshape %v into %v", x.shape(), want)
		}
		shape[infer] = x.size() / known
	}
	return out[0].alias(x, shape[:len(want)])
}

type expandDimsKernel struct{}

func (expandDimsKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	axis, err := in[1].scalarInt()
	if err != nil {
		return fmt.Errorf("expand_dims axis: %w", err)
	}
	if axis < 0 {
		axis += x.rank + 1
	}
	if axis < 0 || axis > x.rank {
		return fmt.Errorf("expand_dims axis out of range for rank %d", x.rank)
	}
	var shape [maxRank + 1]int
	copy(shape[:axis], x.dims[:axis])
	shape[axis] = 1
	copy(shape[axis+1:], x.dims[axis:x.rank])
	return out[0].alias(x, shape[:x.rank+1])
}

type squeezeKernel struct{ dims []int }

func (k squeezeKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	var drop [maxRank]bool
	if len(k.dims) == 0 {
		for d := 0; d < x.rank; d++ {
			drop[d] = x.dims[d] == 1
		}
	}
	for _, a := range k.dims {
		ax, err := normAxis(a, x.rank)
		if err != nil {
			return fmt.Errorf("squeeze: %w", err)
		}
		if x.dims[ax] != 1 {
			return fmt.Errorf("squeeze: dimension %d of %v is not 1", ax, x.shape())
		}
		drop[ax] = true
	}
	var shape [maxRank]int
	n := 0
	for d := 0; d < x.rank; d++ {
		if !drop[d] {
			shape[n] = x.dims[d]
			n++
		}
	}
	return out[0].alias(x, shape[:n])
}

// identityKernel passes its input through. The fusion pass leaves one in
// place of an op whose work moved into an earlier kernel; lastDim, when
// set, checks that the input still has the shape the folded op required.
type identityKernel struct{ lastDim int }

func (k identityKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	if k.lastDim > 0 && (x.rank == 0 || x.dims[x.rank-1] != k.lastDim) {
		return fmt.Errorf("fused op wants last dimension %d, got shape %v", k.lastDim, x.shape())
	}
	return out[0].alias(x, x.shape())
}

type packKernel struct{ axis int }

func (k packKernel) run(_ *env, in, out []*tensor) error {
	first := in[0]
	r := first.rank
	axis := k.axis
	if axis < 0 {
		axis += r + 1
	}
	if axis < 0 || axis > r {
		return fmt.Errorf("pack axis %d out of range for rank %d", k.axis, r)
	}
	for _, t := range in[1:] {
		if t.dt != first.dt || !sameShape(t.shape(), first.shape()) {
			return fmt.Errorf("pack inputs differ: %v and %v", first, t)
		}
	}
	var shape [maxRank + 1]int
	copy(shape[:axis], first.dims[:axis])
	shape[axis] = len(in)
	copy(shape[axis+1:], first.dims[axis:r])
	o := out[0]
	if err := o.setLike(first.dt, shape[:r+1]); err != nil {
		return err
	}
	outer := shapeSize(first.dims[:axis])
	inner := shapeSize(first.dims[axis:r])
	for oi := 0; oi < outer; oi++ {
		for k, t := range in {
			copyElems(o, (oi*len(in)+k)*inner, t, oi*inner, inner)
		}
	}
	return nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type concatKernel struct{}

func (concatKernel) run(_ *env, in, out []*tensor) error {
	vals := in[:len(in)-1]
	axisT := in[len(in)-1]
	if len(vals) == 0 {
		return fmt.Errorf("concat needs at least one input")
	}
	first := vals[0]
	a, err := axisT.scalarInt()
	if err != nil {
		return fmt.Errorf("concat axis: %w", err)
	}
	axis, err := normAxis(a, first.rank)
	if err != nil {
		return fmt.Errorf("concat: %w", err)
	}
	var shape [maxRank]int
	copy(shape[:], first.shape())
	shape[axis] = 0
	for _, t := range vals {
		if t.dt != first.dt || t.rank != first.rank {
			return fmt.Errorf("concat inputs differ: %v and %v", first, t)
		}
		for d := 0; d < t.rank; d++ {
			if d != axis && t.dims[d] != first.dims[d] {
				return fmt.Errorf("concat inputs differ: %v and %v", first, t)
			}
		}
		shape[axis] += t.dims[axis]
	}
	o := out[0]
	if err := o.setLike(first.dt, shape[:first.rank]); err != nil {
		return err
	}
	outer := shapeSize(first.dims[:axis])
	inner := shapeSize(first.dims[axis+1 : first.rank])
	row := shape[axis] * inner
	for oi := 0; oi < outer; oi++ {
		off := oi * row
		for _, t := range vals {
			n := t.dims[axis] * inner
			copyElems(o, off, t, oi*n, n)
			off += n
		}
	}
	return nil
}

type stridedSliceKernel struct {
	beginMask, endMask, ellipsisMask, newAxisMask, shrinkMask int
}

func (k stridedSliceKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	begin, err := in[1].ints()
	if err != nil {
		return fmt.Errorf("strided_slice begin: %w", err)
	}
	end, err := in[2].ints()
	if err != nil {
		return fmt.Errorf("strided_slice end: %w", err)
	}
	strides, err := in[3].ints()
	if err != nil {
		return fmt.Errorf("strided_slice strides: %w", err)
	}
	if len(end) != len(begin) || len(strides) != len(begin) {
		return fmt.Errorf("strided_slice: begin, end and strides differ in length")
	}
	if k.ellipsisMask != 0 {
		return fmt.Errorf("strided_slice: ellipsis_mask is not supported")
	}
	var ist [maxRank]int
	stridesOf(x.shape(), &ist)
	var dims, sstr, shape [maxRank]int
	base := 0
	nd, ns := 0, 0 // input dims consumed, output shape length
	for i := range begin {
		bit := 1 << i
		if k.newAxisMask&bit != 0 {
			if ns >= maxRank {
				return fmt.Errorf("strided_slice: result rank too large")
			}
			shape[ns] = 1
			ns++
			continue
		}
		if nd >= x.rank {
			return fmt.Errorf("strided_slice: spec longer than rank %d", x.rank)
		}
		dim := x.dims[nd]
		s := int(strides[i])
		if s == 0 {
			return fmt.Errorf("strided_slice: zero stride")
		}
		if k.shrinkMask&bit != 0 {
			b := int(begin[i])
			if b < 0 {
				b += dim
			}
			if b < 0 || b >= dim {
				return fmt.Errorf("strided_slice: index %d out of range for dimension %d", begin[i], dim)
			}
			dims[nd], sstr[nd] = 1, ist[nd]
			base += b * ist[nd]
			nd++
			continue
		}
		b, e := int(begin[i]), int(end[i])
		if s > 0 {
			if k.beginMask&bit != 0 {
				b = 0
			} else {
				b = clampIndex(b, dim, 0, dim)
			}
			if k.endMask&bit != 0 {
				e = dim
			} else {
				e = clampIndex(e, dim, 0, dim)
			}
		} else {
			if k.beginMask&bit != 0 {
				b = dim - 1
			} else {
				b = clampIndex(b, dim, -1, dim-1)
			}
			if k.endMask&bit != 0 {
				e = -1
			} else {
				e = clampIndex(e, dim, -1, dim-1)
			}
		}
		n := 0
		if (s > 0 && e > b) || (s < 0 && e < b) {
			n = (e - b + s - sign(s)) / s
		}
		dims[nd], sstr[nd] = n, ist[nd]*s
		if n > 0 {
			base += b * ist[nd]
		}
		if ns >= maxRank {
			return fmt.Errorf("strided_slice: result rank too large")
		}
		shape[ns] = n
		ns++
		nd++
	}
	for ; nd < x.rank; nd++ { // unspecified trailing dims are taken whole
		dims[nd], sstr[nd] = x.dims[nd], ist[nd]
		if ns >= maxRank {
			return fmt.Errorf("strided_slice: result rank too large")
		}
		shape[ns] = x.dims[nd]
		ns++
	}
	o := out[0]
	if err := o.setLike(x.dt, dims[:x.rank]); err != nil {
		return err
	}
	stridedCopy(o, x, dims[:x.rank], sstr[:x.rank], base)
	return o.setShape(shape[:ns])
}

func clampIndex(i, dim, lo, hi int) int {
	if i < 0 {
		i += dim
	}
	return min(max(i, lo), hi)
}

func sign(s int) int {
	if s < 0 {
		return -1
	}
	return 1
}

type sliceKernel struct{}

func (sliceKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	begin, err := in[1].ints()
	if err != nil {
		return fmt.Errorf("slice begin: %w", err)
	}
	size, err := in[2].ints()
	if err != nil {
		return fmt.Errorf("slice size: %w", err)
	}
	if len(begin) != x.rank || len(size) != x.rank {
		return fmt.Errorf("slice: begin %v and size %v do not match rank %d", begin, size, x.rank)
	}
	var ist, dims [maxRank]int
	stridesOf(x.shape(), &ist)
	base := 0
	for d := 0; d < x.rank; d++ {
		b, n := int(begin[d]), int(size[d])
		if n == -1 {
			n = x.dims[d] - b
		}
		if b < 0 || n < 0 || b+n > x.dims[d] {
			return fmt.Errorf("slice [%d:+%d] out of range for dimension %d", b, n, x.dims[d])
		}
		dims[d] = n
		base += b * ist[d]
	}
	o := out[0]
	if err := o.setLike(x.dt, dims[:x.rank]); err != nil {
		return err
	}
	stridedCopy(o, x, dims[:x.rank], ist[:x.rank], base)
	return nil
}

type splitVKernel struct{ num int }

func (k splitVKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	sizes, err := in[1].ints()
	if err != nil {
		return fmt.Errorf("split sizes: %w", err)
	}
	a, err := in[2].scalarInt()
	if err != nil {
		return fmt.Errorf("split axis: %w", err)
	}
	axis, err := normAxis(a, x.rank)
	if err != nil {
		return fmt.Errorf("split: %w", err)
	}
	if len(sizes) != k.num || len(out) != k.num {
		return fmt.Errorf("split: %d sizes for %d outputs", len(sizes), k.num)
	}
	var sz [16]int
	if k.num > len(sz) {
		return fmt.Errorf("split into %d parts is not supported", k.num)
	}
	infer, total := -1, 0
	for j, s := range sizes {
		if s == -1 && infer < 0 {
			infer = j
			continue
		}
		if s < 0 {
			return fmt.Errorf("split sizes %v are invalid", sizes)
		}
		sz[j] = int(s)
		total += int(s)
	}
	if infer >= 0 {
		sz[infer] = x.dims[axis] - total
		total = x.dims[axis]
	}
	if total != x.dims[axis] || (infer >= 0 && sz[infer] < 0) {
		return fmt.Errorf("split sizes %v do not add up to %d", sizes, x.dims[axis])
	}
	var ist [maxRank]int
	stridesOf(x.shape(), &ist)
	var dims [maxRank]int
	copy(dims[:], x.shape())
	off := 0
	for j := 0; j < k.num; j++ {
		dims[axis] = sz[j]
		if err := out[j].setLike(x.dt, dims[:x.rank]); err != nil {
			return err
		}
		stridedCopy(out[j], x, dims[:x.rank], ist[:x.rank], off*ist[axis])
		off += sz[j]
	}
	return nil
}

type transposeKernel struct{}

func (transposeKernel) run(_ *env, in, out []*tensor) error {
	x := in[0]
	perm, err := in[1].ints()
	if err != nil {
		return fmt.Errorf("transpose perm: %w", err)
	}
	if len(perm) != x.rank {
		return fmt.Errorf("transpose perm %v does not match rank %d", perm, x.rank)
	}
	var ist, dims, sstr [maxRank]int
	var seen [maxRank]bool
	stridesOf(x.shape(), &ist)
	for d, p := range perm {
		if p < 0 || int(p) >= x.rank || seen[p] {
			return fmt.Errorf("transpose perm %v is invalid", perm)
		}
		seen[p] = true
		dims[d], sstr[d] = x.dims[p], ist[p]
	}
	o := out[0]
	if err := o.setLike(x.dt, dims[:x.rank]); err != nil {
		return err
	}
	stridedCopy(o, x, dims[:x.rank], sstr[:x.rank], 0)
	return nil
}

type rangeKernel struct{}

func (rangeKernel) run(_ *env, in, out []*tensor) error {
	start, limit, delta := in[0], in[1], in[2]
	o := out[0]
	switch start.dt {
	case dtInt32:
		s, err1 := start.scalarInt()
		l, err2 := limit.scalarInt()
		d, err3 := delta.scalarInt()
		if err1 != nil || err2 != nil || err3 != nil || d == 0 {
			return fmt.Errorf("range wants non-zero int32 scalars")
		}
		n := 0
		if (d > 0 && l > s) || (d < 0 && l < s) {
			n = (l - s + d - sign(d)) / d
		}
		if err := o.setI([]int{n}); err != nil {
			return err
		}
		for j := range o.i {
			o.i[j] = int32(s + j*d)
		}
	case dtFloat32:
		if start.size() != 1 || limit.size() != 1 || delta.size() != 1 || delta.f[0] == 0 {
			return fmt.Errorf("range wants non-zero float32 scalars")
		}
		s, l, d := start.f[0], limit.f[0], delta.f[0]
		n := 0
		if q := (l - s) / d; q > 0 {
			n = int(q)
			if float32(n) < q {
				n++
			}
		}
		if err := o.setF([]int{n}); err != nil {
			return err
		}
		for j := range o.f {
			o.f[j] = s + float32(j)*d
		}
	default:
		return fmt.Errorf("range: unsupported dtype %v", start.dt)
	}
	return nil
}
