package uselite

import (
	"fmt"
	"math"
)

// Element-wise ops with NumPy/TensorFlow broadcasting.

type binOp uint8

const (
	opAdd binOp = iota
	opSub
	opMul
	opDiv
	opMax
	opLess
	opGreater
)

func (o binOp) compares() bool { return o == opLess || o == opGreater }

type binaryKernel struct{ op binOp }

// bcast describes an output shape with each operand's strides (0 where it is
// broadcast), after merging dimensions that can be walked as one.
type bcast struct {
	rank   int
	dims   [maxRank]int
	sa, sb [maxRank]int
}

// broadcast computes the output shape of a op b into out and the walk plan.
func broadcast(as, bs []int, out *[maxRank]int) (int, bcast, error) {
	r := max(len(as), len(bs))
	if r > maxRank {
		return 0, bcast{}, fmt.Errorf("rank %d exceeds the supported %d", r, maxRank)
	}
	var ast, bst [maxRank]int
	stridesOf(as, &ast)
	stridesOf(bs, &bst)
	var full [maxRank]int
	var fa, fb [maxRank]int
	for d := 0; d < r; d++ {
		ad, bd := 1, 1
		ai, bi := d-(r-len(as)), d-(r-len(bs))
		if ai >= 0 {
			ad = as[ai]
		}
		if bi >= 0 {
			bd = bs[bi]
		}
		switch {
		case ad == bd:
			full[d] = ad
		case ad == 1:
			full[d] = bd
		case bd == 1:
			full[d] = ad
		default:
			return 0, bcast{}, fmt.Errorf("dimensions %d and %d do not broadcast", ad, bd)
		}
		if ai >= 0 && ad != 1 {
			fa[d] = ast[ai]
		}
		if bi >= 0 && bd != 1 {
			fb[d] = bst[bi]
		}
	}
	copy(out[:], full[:r])
	return r, makeWalk(full[:r], fa[:r], fb[:r]), nil
}

// makeWalk builds the walk plan for iterating dims with two sets of
// strides: size-1 dimensions are dropped and neighbours that step through
// both operands contiguously are merged, so the innermost run is as long as
// possible.
func makeWalk(full, fa, fb []int) bcast {
	var p bcast
	var md, ma, mb [maxRank]int
	m := 0
	for d := len(full) - 1; d >= 0; d-- {
		if full[d] == 1 {
			continue
		}
		if m > 0 {
			last := m - 1
			if fa[d] == ma[last]*md[last] && fb[d] == mb[last]*md[last] {
				md[last] *= full[d]
				continue
			}
		}
		md[m], ma[m], mb[m] = full[d], fa[d], fb[d]
		m++
	}
	// Reverse into outer-to-inner order.
	p.rank = m
	for k := 0; k < m; k++ {
		p.dims[k], p.sa[k], p.sb[k] = md[m-1-k], ma[m-1-k], mb[m-1-k]
	}
	return p
}

// walk calls inner(dstOff, aOff, bOff, n, aStep, bStep) for each innermost
// run of the broadcast.
func (p *bcast) walk(inner func(dst, ao, bo, n, as, bs int)) {
	if p.rank == 0 {
		inner(0, 0, 0, 1, 0, 0)
		return
	}
	last := p.rank - 1
	n := p.dims[last]
	var idx [maxRank]int
	dst, ao, bo := 0, 0, 0
	for {
		inner(dst, ao, bo, n, p.sa[last], p.sb[last])
		dst += n
		d := last - 1
		for ; d >= 0; d-- {
			idx[d]++
			ao += p.sa[d]
			bo += p.sb[d]
			if idx[d] < p.dims[d] {
				break
			}
			ao -= p.sa[d] * p.dims[d]
			bo -= p.sb[d] * p.dims[d]
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func (k binaryKernel) run(_ *env, in, out []*tensor) error {
	a, b, o := in[0], in[1], out[0]
	if a.dt != b.dt {
		return fmt.Errorf("operand dtypes differ: %v and %v", a.dt, b.dt)
	}
	var shape [maxRank]int
	r, p, err := broadcast(a.shape(), b.shape(), &shape)
	if err != nil {
		return err
	}
	switch {
	case k.op.compares():
		if err := o.setB(shape[:r]); err != nil {
			return err
		}
	default:
		if err := o.setLike(a.dt, shape[:r]); err != nil {
			return err
		}
	}
	if o.size() == 0 {
		return nil
	}
	switch a.dt {
	case dtFloat32:
		if k.op.compares() {
			af, bf, ob := a.f, b.f, o.b
			gt := k.op == opGreater
			p.walk(func(dst, ao, bo, n, as, bs int) {
				for j := 0; j < n; j++ {
					x, y := af[ao+j*as], bf[bo+j*bs]
					ob[dst+j] = (gt && x > y) || (!gt && x < y)
				}
			})
			return nil
		}
		af, bf, of := a.f, b.f, o.f
		op := k.op
		p.walk(func(dst, ao, bo, n, as, bs int) {
			binF32(op, of[dst:dst+n], af[ao:], as, bf[bo:], bs)
		})
	case dtInt32:
		ai, bi := a.i, b.i
		op := k.op
		if op.compares() {
			ob := o.b
			p.walk(func(dst, ao, bo, n, as, bs int) {
				for j := 0; j < n; j++ {
					x, y := ai[ao+j*as], bi[bo+j*bs]
					ob[dst+j] = (op == opGreater && x > y) || (op == opLess && x < y)
				}
			})
			return nil
		}
		oi := o.i
		var failed error
		p.walk(func(dst, ao, bo, n, as, bs int) {
			for j := 0; j < n; j++ {
				x, y := ai[ao+j*as], bi[bo+j*bs]
				var v int32
				switch op {
				case opAdd:
					v = x + y
				case opSub:
					v = x - y
				case opMul:
					v = x * y
				case opMax:
					v = max(x, y)
				case opDiv:
					if y == 0 {
						failed = fmt.Errorf("integer division by zero")
						return
					}
					v = x / y
				}
				oi[dst+j] = v
			}
		})
		return failed
	default:
		return fmt.Errorf("unsupported dtype %v", a.dt)
	}
	return nil
}

// binF32 computes dst[j] = a[j*as] op b[j*bs] with as, bs in {0, 1}. The
// common stride patterns get their own loops so that the compiler can drop
// bounds checks and keep values in registers.
func binF32(op binOp, dst, a []float32, as int, b []float32, bs int) {
	n := len(dst)
	switch {
	case as == 1 && bs == 1:
		a, b = a[:n], b[:n]
		switch op {
		case opAdd:
			for j := range dst {
				dst[j] = a[j] + b[j]
			}
		case opSub:
			for j := range dst {
				dst[j] = a[j] - b[j]
			}
		case opMul:
			for j := range dst {
				dst[j] = a[j] * b[j]
			}
		case opDiv:
			for j := range dst {
				dst[j] = a[j] / b[j]
			}
		case opMax:
			for j := range dst {
				dst[j] = maxF32(a[j], b[j])
			}
		}
	case as == 1 && bs == 0:
		a = a[:n]
		y := b[0]
		switch op {
		case opAdd:
			for j := range dst {
				dst[j] = a[j] + y
			}
		case opSub:
			for j := range dst {
				dst[j] = a[j] - y
			}
		case opMul:
			for j := range dst {
				dst[j] = a[j] * y
			}
		case opDiv:
			for j := range dst {
				dst[j] = a[j] / y
			}
		case opMax:
			for j := range dst {
				dst[j] = maxF32(a[j], y)
			}
		}
	case as == 0 && bs == 1:
		b = b[:n]
		x := a[0]
		switch op {
		case opAdd:
			for j := range dst {
				dst[j] = x + b[j]
			}
		case opSub:
			for j := range dst {
				dst[j] = x - b[j]
			}
		case opMul:
			for j := range dst {
				dst[j] = x * b[j]
			}
		case opDiv:
			for j := range dst {
				dst[j] = x / b[j]
			}
		case opMax:
			for j := range dst {
				dst[j] = maxF32(x, b[j])
			}
		}
	default:
		for j := range dst {
			x, y := a[j*as], b[j*bs]
			var v float32
			switch op {
			case opAdd:
				v = x + y
			case opSub:
				v = x - y
			case opMul:
				v = x * y
			case opDiv:
				v = x / y
			case opMax:
				v = maxF32(x, y)
			}
			dst[j] = v
		}
	}
}

// maxF32 follows TensorFlow's Maximum: NaN in either operand gives NaN.
func maxF32(x, y float32) float32 {
	if x != x || y != y {
		return float32(math.NaN())
	}
	if x > y {
		return x
	}
	return y
}

type unaryOp uint8

const (
	opSquare unaryOp = iota
	opRsqrt
	opSin
	opCos
	opTanh
	opRelu
)

type unaryKernel struct{ op unaryOp }

func (k unaryKernel) run(_ *env, in, out []*tensor) error {
	x, o := in[0], out[0]
	if x.dt != dtFloat32 {
		return fmt.Errorf("want float32, got %v", x.dt)
	}
	if err := o.setF(x.shape()); err != nil {
		return err
	}
	src, dst := x.f[:len(o.f)], o.f
	switch k.op {
	case opSquare:
		for j, v := range src {
			dst[j] = v * v
		}
	case opRsqrt:
		for j, v := range src {
			dst[j] = float32(1 / math.Sqrt(float64(v)))
		}
	case opSin:
		for j, v := range src {
			dst[j] = float32(math.Sin(float64(v)))
		}
	case opCos:
		for j, v := range src {
			dst[j] = float32(math.Cos(float64(v)))
		}
	case opTanh:
		for j, v := range src {
			dst[j] = float32(math.Tanh(float64(v)))
		}
	case opRelu:
		for j, v := range src {
			dst[j] = max(v, 0)
		}
	}
	return nil
}

type logicalNotKernel struct{}

func (logicalNotKernel) run(_ *env, in, out []*tensor) error {
	x, o := in[0], out[0]
	if x.dt != dtBool {
		return fmt.Errorf("want bool, got %v", x.dt)
	}
	if err := o.setB(x.shape()); err != nil {
		return err
	}
	for j, v := range x.b[:len(o.b)] {
		o.b[j] = !v
	}
	return nil
}

type castKernel struct{ to dtype }

func (k castKernel) run(_ *env, in, out []*tensor) error {
	x, o := in[0], out[0]
	if err := o.setLike(k.to, x.shape()); err != nil {
		return err
	}
	n := o.size()
	switch x.dt {
	case dtFloat32:
		src := x.f[:n]
		switch k.to {
		case dtFloat32:
			copy(o.f, src)
		case dtInt32:
			for j, v := range src {
				o.i[j] = int32(v) // truncates toward zero, as TensorFlow
			}
		case dtBool:
			for j, v := range src {
				o.b[j] = v != 0
			}
		}
	case dtInt32:
		src := x.i[:n]
		switch k.to {
		case dtFloat32:
			for j, v := range src {
				o.f[j] = float32(v)
			}
		case dtInt32:
			copy(o.i, src)
		case dtBool:
			for j, v := range src {
				o.b[j] = v != 0
			}
		}
	case dtBool:
		src := x.b[:n]
		for j, v := range src {
			var one int32
			if v {
				one = 1
			}
			switch k.to {
			case dtFloat32:
				o.f[j] = float32(one)
			case dtInt32:
				o.i[j] = one
			case dtBool:
				o.b[j] = v
			}
		}
	default:
		return fmt.Errorf("unsupported dtype %v", x.dt)
	}
	return nil
}
