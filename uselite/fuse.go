package uselite

// Graph rewrites that fold runs of small ops into one fast kernel. Each
// rewrite matches a pattern in the model's own graph, so a graph without
// the pattern simply runs unfused. A rewrite only applies where the values
// it removes are used by nothing else.
//
//   MatMul(x, const W)           -> _Dense (W packed into panels at load)
//   Conv2D(x, const 1x1 filter)  -> _Dense
//   BiasAdd(_Dense, const b)     -> bias folded into the _Dense; the
//                                   BiasAdd becomes an _Identity (it may
//                                   sit behind Reshape/ExpandDims/Squeeze,
//                                   which keep the element order)
//   Relu(_Dense)                 -> relu folded likewise
//   the ten-op layer norm        -> _LayerNorm

// fusion holds what a rewrite folded into a node.
type fusion struct {
	// _Dense
	w    *packedMatrix
	bias []float32
	relu bool
	conv bool
	// _LayerNorm
	gamma, beta []float32
	eps         float32
	// _Identity: the last dimension the removed op required, or 0.
	lastDim int
}

func fuseGraph(g *graph, root *gnode) error {
	order, err := topoOrder(root)
	if err != nil {
		return err
	}
	fuseDense(order)
	for _, pass := range []func([]*gnode, map[*gnode]int){fuseBias, fuseRelu, fuseLayerNorm} {
		order, err = topoOrder(root)
		if err != nil {
			return err
		}
		pass(order, consumerCounts(order, root))
	}
	return nil
}

// consumerCounts counts how many inputs read each node (the root counts
// one more: the caller reads it).
func consumerCounts(order []*gnode, root *gnode) map[*gnode]int {
	c := make(map[*gnode]int, len(order))
	for _, n := range order {
		for _, in := range n.inputs {
			c[in.n]++
		}
	}
	c[root]++
	return c
}

func constF32(n *gnode, rank int) []float32 {
	if n.op != "Const" || n.value == nil || n.value.dt != dtFloat32 || n.value.rank != rank {
		return nil
	}
	return n.value.f
}

func fuseDense(order []*gnode) {
	for _, n := range order {
		switch n.op {
		case "MatMul":
			if len(n.inputs) != 2 {
				continue
			}
			ta, err1 := n.attrBool("transpose_a", false)
			tb, err2 := n.attrBool("transpose_b", false)
			w := n.inputs[1].n
			if err1 != nil || err2 != nil || ta || constF32(w, 2) == nil {
				continue
			}
			k, cols := w.value.dims[0], w.value.dims[1]
			if tb {
				k, cols = cols, k
			}
			if k == 0 {
				continue
			}
			n.op = "_Dense"
			n.fused = &fusion{w: packMatrix(w.value.f, k, cols, tb)}
			n.inputs = n.inputs[:1]
		case "Conv2D":
			if len(n.inputs) != 2 || checkConv2D(n) != nil {
				continue
			}
			w := n.inputs[1].n
			if constF32(w, 4) == nil || w.value.dims[0] != 1 || w.value.dims[1] != 1 || w.value.dims[2] == 0 {
				continue
			}
			n.op = "_Dense"
			n.fused = &fusion{w: packMatrix(w.value.f, w.value.dims[2], w.value.dims[3], false), conv: true}
			n.inputs = n.inputs[:1]
		}
	}
}

// throughViews follows a value back through ops that only change its shape
// and returns the node that computed it, or nil if any node on the way
// (or the producer) is read by something else too.
func throughViews(ref vref, cons map[*gnode]int) *gnode {
	for {
		n := ref.n
		if cons[n] != 1 || ref.out != 0 {
			return nil
		}
		switch n.op {
		case "Reshape", "ExpandDims", "Squeeze", "Identity", "_Identity":
			ref = n.inputs[0]
		default:
			return n
		}
	}
}

func fuseBias(order []*gnode, cons map[*gnode]int) {
	for _, n := range order {
		if n.op != "BiasAdd" || len(n.inputs) != 2 {
			continue
		}
		if df, err := n.attrString("data_format", "NHWC"); err != nil || df != "NHWC" {
			continue
		}
		b := constF32(n.inputs[1].n, 1)
		d := throughViews(n.inputs[0], cons)
		if b == nil || d == nil || d.op != "_Dense" || d.fused.bias != nil || d.fused.relu || len(b) != d.fused.w.n {
			continue
		}
		d.fused.bias = b
		n.op = "_Identity"
		n.fused = &fusion{lastDim: len(b)}
		n.inputs = n.inputs[:1]
	}
}

func fuseRelu(order []*gnode, cons map[*gnode]int) {
	for _, n := range order {
		if n.op != "Relu" || len(n.inputs) != 1 {
			continue
		}
		d := throughViews(n.inputs[0], cons)
		if d == nil || d.op != "_Dense" || d.fused.relu {
			continue
		}
		d.fused.relu = true
		n.op = "_Identity"
		n.fused = &fusion{}
	}
}

// fuseLayerNorm matches
//
//	mean  = Mean(x, -1, keep_dims)      sub = Sub(x, mean)
//	var   = Mean(Square(sub), -1, keep_dims)
//	y     = Add(Mul(Mul(gamma, Rsqrt(Add(var, eps))), sub), beta)
//
// with the commutative operands in either order.
func fuseLayerNorm(order []*gnode, cons map[*gnode]int) {
	for _, n := range order {
		x, f, ok := matchLayerNorm(n, cons)
		if !ok {
			continue
		}
		n.op = "_LayerNorm"
		n.inputs = []vref{x}
		n.fused = f
	}
}

// split2 returns the operand of a binary node that is a constant of the
// given rank and the other operand, in either order.
func split2(n *gnode, rank int) ([]float32, vref, bool) {
	if len(n.inputs) != 2 {
		return nil, vref{}, false
	}
	for i := 0; i < 2; i++ {
		if c := constF32(n.inputs[i].n, rank); c != nil {
			return c, n.inputs[1-i], true
		}
	}
	return nil, vref{}, false
}

func isOp(ref vref, cons map[*gnode]int, uses int, ops ...string) bool {
	if ref.out != 0 || cons[ref.n] != uses {
		return false
	}
	for _, op := range ops {
		if ref.n.op == op {
			return true
		}
	}
	return false
}

// lastAxisMean reports whether n is Mean over axis -1 keeping dims.
func lastAxisMean(n *gnode) bool {
	if n.op != "Mean" || len(n.inputs) != 2 {
		return false
	}
	keep, err := n.attrBool("keep_dims", false)
	ax := n.inputs[1].n
	if err != nil || !keep || ax.op != "Const" || ax.value == nil || ax.value.dt != dtInt32 || ax.value.size() != 1 {
		return false
	}
	return ax.value.i[0] == -1
}

func matchLayerNorm(add *gnode, cons map[*gnode]int) (vref, *fusion, bool) {
	fail := func() (vref, *fusion, bool) { return vref{}, nil, false }
	if add.op != "Add" && add.op != "AddV2" {
		return fail()
	}
	beta, mulRef, ok := split2(add, 1)
	if !ok || !isOp(mulRef, cons, 1, "Mul") {
		return fail()
	}
	mul := mulRef.n
	if len(mul.inputs) != 2 {
		return fail()
	}
	// One operand of mul is gamma·rsqrt, the other the centred input.
	var scaleRef, subRef vref
	switch {
	case isOp(mul.inputs[0], cons, 1, "Mul") && isOp(mul.inputs[1], cons, 2, "Sub"):
		scaleRef, subRef = mul.inputs[0], mul.inputs[1]
	case isOp(mul.inputs[1], cons, 1, "Mul") && isOp(mul.inputs[0], cons, 2, "Sub"):
		scaleRef, subRef = mul.inputs[1], mul.inputs[0]
	default:
		return fail()
	}
	gamma, rsqrtRef, ok := split2(scaleRef.n, 1)
	if !ok || !isOp(rsqrtRef, cons, 1, "Rsqrt") {
		return fail()
	}
	epsRef := rsqrtRef.n.inputs[0]
	if !isOp(epsRef, cons, 1, "Add", "AddV2") {
		return fail()
	}
	eps, varRef, ok := split2(epsRef.n, 0)
	if !ok || !isOp(varRef, cons, 1, "Mean") || !lastAxisMean(varRef.n) {
		return fail()
	}
	sqRef := varRef.n.inputs[0]
	if !isOp(sqRef, cons, 1, "Square") || sqRef.n.inputs[0] != subRef {
		return fail()
	}
	sub := subRef.n
	if len(sub.inputs) != 2 || !isOp(sub.inputs[1], cons, 1, "Mean") || !lastAxisMean(sub.inputs[1].n) {
		return fail()
	}
	x := sub.inputs[0]
	if sub.inputs[1].n.inputs[0] != x || len(gamma) != len(beta) || len(gamma) == 0 {
		return fail()
	}
	return x, &fusion{gamma: gamma, beta: beta, eps: eps[0]}, true
}
