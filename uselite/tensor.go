package uselite

import (
	"fmt"
	"strings"
)

// dtype is the element type of a tensor. TensorFlow's int64 (the output of
// Where) is held as int32: every index in this model fits.
type dtype uint8

const (
	dtInvalid dtype = iota
	dtFloat32
	dtInt32
	dtBool
)

func (d dtype) String() string {
	switch d {
	case dtFloat32:
		return "float32"
	case dtInt32:
		return "int32"
	case dtBool:
		return "bool"
	}
	return "invalid"
}

// maxRank bounds tensor rank so that a shape lives inside the tensor (no
// allocation per op). The graph uses rank 4 at most.
const maxRank = 6

// tensor is a dense row-major array. Exactly one of f, i, b is in use,
// according to dt. Buffers are reused from run to run: an op sizes its
// output with the set* methods, which keep the capacity.
type tensor struct {
	dt   dtype
	rank int
	dims [maxRank]int
	f    []float32
	i    []int32
	b    []bool
}

func (t *tensor) shape() []int { return t.dims[:t.rank] }

func (t *tensor) size() int { return shapeSize(t.dims[:t.rank]) }

func shapeSize(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

func (t *tensor) setShape(shape []int) error {
	if len(shape) > maxRank {
		return fmt.Errorf("rank %d exceeds the supported %d", len(shape), maxRank)
	}
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("negative dimension %d", d) // not shape: it would escape
		}
	}
	t.rank = copy(t.dims[:], shape)
	return nil
}

// setF makes t a float32 tensor of the given shape, reusing its buffer.
// The contents are unspecified.
func (t *tensor) setF(shape []int) error {
	if err := t.setShape(shape); err != nil {
		return err
	}
	t.dt = dtFloat32
	t.f = growF32(t.f, t.size())
	return nil
}

func (t *tensor) setI(shape []int) error {
	if err := t.setShape(shape); err != nil {
		return err
	}
	t.dt = dtInt32
	t.i = growInt32(t.i, t.size())
	return nil
}

func (t *tensor) setB(shape []int) error {
	if err := t.setShape(shape); err != nil {
		return err
	}
	t.dt = dtBool
	t.b = growBool(t.b, t.size())
	return nil
}

// setLike sizes t with the given dtype and shape.
func (t *tensor) setLike(dt dtype, shape []int) error {
	switch dt {
	case dtFloat32:
		return t.setF(shape)
	case dtInt32:
		return t.setI(shape)
	case dtBool:
		return t.setB(shape)
	}
	return fmt.Errorf("unsupported dtype %v", dt)
}

// alias makes t share src's data under a new shape (Reshape, ExpandDims,
// Squeeze). Safe because no op writes into its inputs.
func (t *tensor) alias(src *tensor, shape []int) error {
	if shapeSize(shape) != src.size() {
		return fmt.Errorf("cannot view %d elements as %d", src.size(), shapeSize(shape))
	}
	if err := t.setShape(shape); err != nil {
		return err
	}
	t.dt = src.dt
	t.f, t.i, t.b = src.f, src.i, src.b
	return nil
}

// ints returns the values of an integer tensor (shape operands).
func (t *tensor) ints() ([]int32, error) {
	if t.dt != dtInt32 {
		return nil, fmt.Errorf("want an int32 tensor, got %v", t.dt)
	}
	return t.i[:t.size()], nil
}

// scalarInt returns the single value of an int32 scalar or 1-element tensor.
func (t *tensor) scalarInt() (int, error) {
	v, err := t.ints()
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("want one value, got shape %v", t.shape())
	}
	return int(v[0]), nil
}

func (t *tensor) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v%v", t.dt, t.shape())
	return b.String()
}

func growF32(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n, n+n/4)
	}
	return b[:n]
}

func growBool(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n, n+n/4)
	}
	return b[:n]
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis, rank int) (int, error) {
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return 0, fmt.Errorf("axis out of range for rank %d", rank)
	}
	return axis, nil
}

// stridesOf returns row-major strides for shape.
func stridesOf(shape []int, out *[maxRank]int) {
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		out[d] = s
		s *= shape[d]
	}
}
