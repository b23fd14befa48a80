package uselite

import "fmt"

// Gather, scatter and sparse ops. Out-of-range indices are errors (as on
// TensorFlow's CPU kernels), never a read or write out of bounds.

type gatherV2Kernel struct{}

func (gatherV2Kernel) run(_ *env, in, out []*tensor) error {
	params, indices := in[0], in[1]
	idx, err := indices.ints()
	if err != nil {
		return fmt.Errorf("gather indices: %w", err)
	}
	a, err := in[2].scalarInt()
	if err != nil {
		return fmt.Errorf("gather axis: %w", err)
	}
	axis, err := normAxis(a, params.rank)
	if err != nil {
		return fmt.Errorf("gather: %w", err)
	}
	r := axis + indices.rank + params.rank - axis - 1
	if r > maxRank {
		return fmt.Errorf("gather result rank %d exceeds the supported %d", r, maxRank)
	}
	var shape [maxRank]int
	n := copy(shape[:], params.dims[:axis])
	n += copy(shape[n:], indices.shape())
	copy(shape[n:], params.dims[axis+1:params.rank])
	o := out[0]
	if err := o.setLike(params.dt, shape[:r]); err != nil {
		return err
	}
	outer := shapeSize(params.dims[:axis])
	inner := shapeSize(params.dims[axis+1 : params.rank])
	dim := params.dims[axis]
	dst := 0
	for oi := 0; oi < outer; oi++ {
		for _, v := range idx {
			if v < 0 || int(v) >= dim {
				return fmt.Errorf("gather index %d out of range [0, %d)", v, dim)
			}
			copyElems(o, dst, params, (oi*dim+int(v))*inner, inner)
			dst += inner
		}
	}
	return nil
}

// ndIndex resolves the leading k coordinates of one GatherNd/ScatterNd index
// into an element offset of a tensor of shape dims.
func ndIndex(coords []int32, dims []int, strides []int) (int, error) {
	off := 0
	for d, c := range coords {
		if c < 0 || int(c) >= dims[d] {
			return 0, fmt.Errorf("index %d out of range [0, %d) in dimension %d", c, dims[d], d)
		}
		off += int(c) * strides[d]
	}
	return off, nil
}

type gatherNdKernel struct{}

func (gatherNdKernel) run(_ *env, in, out []*tensor) error {
	params, indices := in[0], in[1]
	idx, err := indices.ints()
	if err != nil {
		return fmt.Errorf("gather_nd indices: %w", err)
	}
	if indices.rank == 0 {
		return fmt.Errorf("gather_nd indices must have rank >= 1")
	}
	k := indices.dims[indices.rank-1]
	if k > params.rank {
		return fmt.Errorf("gather_nd index depth %d exceeds rank %d", k, params.rank)
	}
	r := indices.rank - 1 + params.rank - k
	if r > maxRank {
		return fmt.Errorf("gather_nd result rank %d exceeds the supported %d", r, maxRank)
	}
	var shape [maxRank]int
	n := copy(shape[:], indices.dims[:indices.rank-1])
	copy(shape[n:], params.dims[k:params.rank])
	o := out[0]
	if err := o.setLike(params.dt, shape[:r]); err != nil {
		return err
	}
	var pst [maxRank]int
	stridesOf(params.shape(), &pst)
	slice := shapeSize(params.dims[k:params.rank])
	count := shapeSize(indices.dims[:indices.rank-1])
	for j := 0; j < count; j++ {
		off, err := ndIndex(idx[j*k:(j+1)*k], params.dims[:k], pst[:k])
		if err != nil {
			return fmt.Errorf("gather_nd: %w", err)
		}
		copyElems(o, j*slice, params, off, slice)
	}
	return nil
}

type scatterNdKernel struct{}

func (scatterNdKernel) run(_ *env, in, out []*tensor) error {
	indices, updates := in[0], in[1]
	idx, err := indices.ints()
	if err != nil {
		return fmt.Errorf("scatter_nd indices: %w", err)
	}
	want, err := in[2].ints()
	if err != nil {
		return fmt.Errorf("scatter_nd shape: %w", err)
	}
	if indices.rank == 0 {
		return fmt.Errorf("scatter_nd indices must have rank >= 1")
	}
	var shape [maxRank]int
	if len(want) > maxRank {
		return fmt.Errorf("scatter_nd rank %d exceeds the supported %d", len(want), maxRank)
	}
	for d, v := range want {
		shape[d] = int(v)
	}
	dims := shape[:len(want)]
	k := indices.dims[indices.rank-1]
	if k > len(dims) {
		return fmt.Errorf("scatter_nd index depth %d exceeds rank %d", k, len(dims))
	}
	o := out[0]
	if err := o.setLike(updates.dt, dims); err != nil {
		return err
	}
	var ost [maxRank]int
	stridesOf(dims, &ost)
	slice := shapeSize(dims[k:])
	count := shapeSize(indices.dims[:indices.rank-1])
	if updates.size() < count*slice {
		return fmt.Errorf("scatter_nd: %d updates for %d indices of %d elements", updates.size(), count, slice)
	}
	switch updates.dt {
	case dtFloat32:
		clear(o.f)
		for j := 0; j < count; j++ {
			off, err := ndIndex(idx[j*k:(j+1)*k], dims[:k], ost[:k])
			if err != nil {
				return fmt.Errorf("scatter_nd: %w", err)
			}
			dst, src := o.f[off:off+slice], updates.f[j*slice:(j+1)*slice]
			for e, v := range src {
				dst[e] += v // duplicates add up, as in TensorFlow
			}
		}
	case dtInt32:
		clear(o.i)
		for j := 0; j < count; j++ {
			off, err := ndIndex(idx[j*k:(j+1)*k], dims[:k], ost[:k])
			if err != nil {
				return fmt.Errorf("scatter_nd: %w", err)
			}
			dst, src := o.i[off:off+slice], updates.i[j*slice:(j+1)*slice]
			for e, v := range src {
				dst[e] += v
			}
		}
	default:
		return fmt.Errorf("scatter_nd: unsupported dtype %v", updates.dt)
	}
	return nil
}

type sparseToDenseKernel struct{}

func (sparseToDenseKernel) run(_ *env, in, out []*tensor) error {
	indices, values, def := in[0], in[2], in[3]
	idx, err := indices.ints()
	if err != nil {
		return fmt.Errorf("sparse_to_dense indices: %w", err)
	}
	want, err := in[1].ints()
	if err != nil {
		return fmt.Errorf("sparse_to_dense shape: %w", err)
	}
	if len(want) > maxRank {
		return fmt.Errorf("sparse_to_dense rank %d exceeds the supported %d", len(want), maxRank)
	}
	var shape [maxRank]int
	for d, v := range want {
		if v < 0 {
			return fmt.Errorf("sparse_to_dense shape %v is invalid", want)
		}
		shape[d] = int(v)
	}
	dims := shape[:len(want)]
	var count, depth int
	switch indices.rank {
	case 0:
		count, depth = 1, 1
	case 1:
		count, depth = indices.dims[0], 1
	case 2:
		count, depth = indices.dims[0], indices.dims[1]
	default:
		return fmt.Errorf("sparse_to_dense indices must have rank <= 2")
	}
	if depth != len(dims) {
		return fmt.Errorf("sparse_to_dense: index depth %d for rank %d", depth, len(dims))
	}
	if values.dt != def.dt || def.size() != 1 {
		return fmt.Errorf("sparse_to_dense: values %v and default %v do not match", values, def)
	}
	if values.size() != count && values.size() != 1 {
		return fmt.Errorf("sparse_to_dense: %d values for %d indices", values.size(), count)
	}
	o := out[0]
	if err := o.setLike(values.dt, dims); err != nil {
		return err
	}
	var ost [maxRank]int
	stridesOf(dims, &ost)
	pick := func(j int) int {
		if values.size() == 1 {
			return 0
		}
		return j
	}
	switch values.dt {
	case dtFloat32:
		for e := range o.f {
			o.f[e] = def.f[0]
		}
		for j := 0; j < count; j++ {
			off, err := ndIndex(idx[j*depth:(j+1)*depth], dims, ost[:len(dims)])
			if err != nil {
				return fmt.Errorf("sparse_to_dense: %w", err)
			}
			o.f[off] = values.f[pick(j)]
		}
	case dtInt32:
		for e := range o.i {
			o.i[e] = def.i[0]
		}
		for j := 0; j < count; j++ {
			off, err := ndIndex(idx[j*depth:(j+1)*depth], dims, ost[:len(dims)])
			if err != nil {
				return fmt.Errorf("sparse_to_dense: %w", err)
			}
			o.i[off] = values.i[pick(j)]
		}
	default:
		return fmt.Errorf("sparse_to_dense: unsupported dtype %v", values.dt)
	}
	return nil
}

// whereKernel returns the coordinates of the true (non-zero) elements in
// row-major order, as int32 (TensorFlow says int64).
type whereKernel struct{}

func (whereKernel) run(_ *env, in, out []*tensor) error {
	x, o := in[0], out[0]
	n := x.size()
	count := 0
	truth := func(j int) bool {
		switch x.dt {
		case dtBool:
			return x.b[j]
		case dtInt32:
			return x.i[j] != 0
		default:
			return x.f[j] != 0
		}
	}
	for j := 0; j < n; j++ {
		if truth(j) {
			count++
		}
	}
	if err := o.setI([]int{count, x.rank}); err != nil {
		return err
	}
	var coord [maxRank]int
	w := 0
	for j := 0; j < n; j++ {
		if truth(j) {
			for d := 0; d < x.rank; d++ {
				o.i[w+d] = int32(coord[d])
			}
			w += x.rank
		}
		for d := x.rank - 1; d >= 0; d-- {
			coord[d]++
			if coord[d] < x.dims[d] {
				break
			}
			coord[d] = 0
		}
	}
	return nil
}
