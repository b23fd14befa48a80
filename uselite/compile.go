package uselite

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A plan is the graph compiled for execution: the nodes needed for one
// output in topological order, each with its kernel and the slots (value
// buffers) it reads and writes.
type plan struct {
	steps  []step
	nslots int
	// consts[slot] is the constant held in a slot, nil for computed slots.
	consts []*tensor
	inputs map[string]int
	output int
}

type step struct {
	name, op string
	k        kernel
	in, out  []int
}

// compile builds the plan that computes output (a node name, optionally
// with ":index"). With fuse, recognised op patterns are first rewritten
// into fused kernels (see fuse.go); without, every op runs as written,
// which the tests use to check the rewrite.
func compile(g *graph, output string, fuse bool) (*plan, error) {
	outName, outIdx := output, 0
	if k := strings.LastIndexByte(output, ':'); k >= 0 {
		if _, err := fmt.Sscanf(output[k+1:], "%d", &outIdx); err == nil {
			outName = output[:k]
		}
	}
	root, ok := g.byName[outName]
	if !ok {
		return nil, fmt.Errorf("model has no node %q", outName)
	}
	if fuse {
		g = g.clone()
		root = g.byName[outName]
		if err := fuseGraph(g, root); err != nil {
			return nil, err
		}
	}
	order, err := topoOrder(root)
	if err != nil {
		return nil, err
	}

	p := &plan{inputs: make(map[string]int)}
	slotOf := make(map[vref]int)
	nouts := make(map[*gnode]int)
	kernels := make(map[*gnode]kernel)
	for _, n := range order {
		switch n.op {
		case "Const":
			slotOf[vref{n, 0}] = p.nslots
			p.consts = append(p.consts, n.value)
			p.nslots++
			nouts[n] = 1
			continue
		case "Placeholder":
			slotOf[vref{n, 0}] = p.nslots
			p.consts = append(p.consts, nil)
			p.inputs[n.name] = p.nslots
			p.nslots++
			nouts[n] = 1
			continue
		}
		k, nout, err := makeKernel(n)
		if err != nil {
			return nil, fmt.Errorf("node %q (%s): %w", n.name, n.op, err)
		}
		kernels[n] = k
		nouts[n] = nout
		for o := 0; o < nout; o++ {
			slotOf[vref{n, o}] = p.nslots
			p.consts = append(p.consts, nil)
			p.nslots++
		}
	}
	for _, n := range order {
		k := kernels[n]
		if k == nil {
			continue
		}
		st := step{name: n.name, op: n.op, k: k}
		for _, in := range n.inputs {
			if in.out >= nouts[in.n] {
				return nil, fmt.Errorf("node %q reads output %d of %q, which has %d", n.name, in.out, in.n.name, nouts[in.n])
			}
			st.in = append(st.in, slotOf[in])
		}
		for o := 0; o < nouts[n]; o++ {
			st.out = append(st.out, slotOf[vref{n, o}])
		}
		p.steps = append(p.steps, st)
	}
	s, ok := slotOf[vref{root, outIdx}]
	if !ok || outIdx >= nouts[root] {
		return nil, fmt.Errorf("node %q has no output %d", outName, outIdx)
	}
	p.output = s
	return p, nil
}

// topoOrder lists the nodes root depends on, inputs before users. It is
// iterative so that a deep graph cannot exhaust the stack, and rejects
// cycles.
func topoOrder(root *gnode) ([]*gnode, error) {
	const (
		unseen = iota
		open
		done
	)
	state := make(map[*gnode]int)
	var order []*gnode
	type frame struct {
		n    *gnode
		next int
	}
	stack := []frame{{root, 0}}
	state[root] = open
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.n.inputs) {
			in := top.n.inputs[top.next].n
			top.next++
			switch state[in] {
			case unseen:
				state[in] = open
				stack = append(stack, frame{in, 0})
			case open:
				return nil, fmt.Errorf("model graph has a cycle through %q", in.name)
			}
			continue
		}
		state[top.n] = done
		order = append(order, top.n)
		stack = stack[:len(stack)-1]
	}
	return order, nil
}

// clone copies the node structure (constants are shared, read-only) so
// that fusion can rewrite it.
func (g *graph) clone() *graph {
	c := &graph{byName: make(map[string]*gnode, len(g.nodes))}
	m := make(map[*gnode]*gnode, len(g.nodes))
	for _, n := range g.nodes {
		cp := *n
		cp.fused = nil
		m[n] = &cp
		c.nodes = append(c.nodes, &cp)
		c.byName[cp.name] = &cp
	}
	for _, n := range c.nodes {
		ins := make([]vref, len(n.inputs))
		for i, in := range n.inputs {
			ins[i] = vref{m[in.n], in.out}
		}
		n.inputs = ins
	}
	return c
}

// tfDtype maps a TensorFlow DataType enum to ours. int64 is held as int32.
func tfDtype(n *gnode, key string) (dtype, error) {
	v, ok := n.attr[key]
	if !ok {
		return dtInvalid, fmt.Errorf("missing attr %q", key)
	}
	var a struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(v, &a); err != nil {
		return dtInvalid, fmt.Errorf("attr %q: %w", key, err)
	}
	switch t := a.Type.(type) {
	case float64:
		switch int(t) {
		case 1:
			return dtFloat32, nil
		case 3, 9:
			return dtInt32, nil
		case 10:
			return dtBool, nil
		}
	case string:
		switch t {
		case "DT_FLOAT":
			return dtFloat32, nil
		case "DT_INT32", "DT_INT64":
			return dtInt32, nil
		case "DT_BOOL":
			return dtBool, nil
		}
	}
	return dtInvalid, fmt.Errorf("attr %q: unsupported type %v", key, a.Type)
}

// plainKernels are the ops whose kernel has no attributes, with their
// input counts.
var plainKernels = map[string]struct {
	k      kernel
	inputs int
}{
	"Add": {binaryKernel{opAdd}, 2}, "AddV2": {binaryKernel{opAdd}, 2},
	"Sub": {binaryKernel{opSub}, 2}, "Mul": {binaryKernel{opMul}, 2},
	"RealDiv": {binaryKernel{opDiv}, 2}, "Maximum": {binaryKernel{opMax}, 2},
	"Less": {binaryKernel{opLess}, 2}, "Greater": {binaryKernel{opGreater}, 2},
	"Square": {unaryKernel{opSquare}, 1}, "Rsqrt": {unaryKernel{opRsqrt}, 1},
	"Sin": {unaryKernel{opSin}, 1}, "Cos": {unaryKernel{opCos}, 1},
	"Tanh": {unaryKernel{opTanh}, 1}, "Relu": {unaryKernel{opRelu}, 1},
	"LogicalNot": {logicalNotKernel{}, 1}, "Softmax": {softmaxKernel{}, 1},
	"Shape": {shapeKernel{}, 1}, "Reshape": {reshapeKernel{}, 2},
	"ExpandDims": {expandDimsKernel{}, 2}, "Identity": {identityKernel{}, 1},
	"Slice": {sliceKernel{}, 3}, "Transpose": {transposeKernel{}, 2},
	"Range": {rangeKernel{}, 3}, "GatherNd": {gatherNdKernel{}, 2},
	"ScatterNd": {scatterNdKernel{}, 3}, "SparseToDense": {sparseToDenseKernel{}, 4},
	"Where": {whereKernel{}, 1}, "Conv2D": {conv2DKernel{}, 2},
}

// makeKernel builds the kernel for a node and says how many outputs it has.
func makeKernel(n *gnode) (kernel, int, error) {
	need := func(k int) error {
		if len(n.inputs) != k {
			return fmt.Errorf("want %d inputs, got %d", k, len(n.inputs))
		}
		return nil
	}
	if s, ok := plainKernels[n.op]; ok {
		if err := need(s.inputs); err != nil {
			return nil, 0, err
		}
		if n.op == "Conv2D" {
			if err := checkConv2D(n); err != nil {
				return nil, 0, err
			}
		}
		return s.k, 1, nil
	}
	switch n.op {
	case "_Identity":
		return identityKernel{lastDim: n.fused.lastDim}, 1, need(1)
	case "_Dense":
		f := n.fused
		return &denseKernel{w: f.w, bias: padBias(f.bias, f.w), relu: f.relu, conv: f.conv}, 1, need(1)
	case "_LayerNorm":
		f := n.fused
		return &layerNormKernel{gamma: f.gamma, beta: f.beta, eps: f.eps}, 1, need(1)
	case "Cast":
		to, err := tfDtype(n, "DstT")
		if err != nil {
			return nil, 0, err
		}
		return castKernel{to}, 1, need(1)
	case "Mean", "Sum", "Max", "Prod":
		keep, err := n.attrBool("keep_dims", false)
		if err != nil {
			return nil, 0, err
		}
		op := map[string]reduceOp{"Mean": redMean, "Sum": redSum, "Max": redMax, "Prod": redProd}[n.op]
		return reduceKernel{op: op, keepDims: keep}, 1, need(2)
	case "Squeeze":
		dims, err := n.attrInts("squeeze_dims")
		if err != nil {
			return nil, 0, err
		}
		return squeezeKernel{dims}, 1, need(1)
	case "Pack":
		axis, err := n.attrInt("axis", 0)
		if err != nil {
			return nil, 0, err
		}
		if len(n.inputs) == 0 {
			return nil, 0, fmt.Errorf("pack needs inputs")
		}
		return packKernel{axis}, 1, nil
	case "ConcatV2":
		if len(n.inputs) < 2 {
			return nil, 0, fmt.Errorf("concat needs inputs and an axis")
		}
		return concatKernel{}, 1, nil
	case "StridedSlice":
		var k stridedSliceKernel
		for _, a := range []struct {
			key string
			dst *int
		}{
			{"begin_mask", &k.beginMask}, {"end_mask", &k.endMask},
			{"ellipsis_mask", &k.ellipsisMask}, {"new_axis_mask", &k.newAxisMask},
			{"shrink_axis_mask", &k.shrinkMask},
		} {
			v, err := n.attrInt(a.key, 0)
			if err != nil {
				return nil, 0, err
			}
			*a.dst = v
		}
		if k.ellipsisMask != 0 {
			return nil, 0, fmt.Errorf("ellipsis_mask is not supported")
		}
		return k, 1, need(4)
	case "GatherV2":
		bd, err := n.attrInt("batch_dims", 0)
		if err != nil {
			return nil, 0, err
		}
		if bd != 0 {
			return nil, 0, fmt.Errorf("batch_dims %d is not supported", bd)
		}
		return gatherV2Kernel{}, 1, need(3)
	case "SplitV":
		num, err := n.attrInt("num_split", 0)
		if err != nil {
			return nil, 0, err
		}
		if num < 1 {
			return nil, 0, fmt.Errorf("num_split %d is invalid", num)
		}
		return splitVKernel{num}, num, need(3)
	case "MatMul":
		ta, err1 := n.attrBool("transpose_a", false)
		tb, err2 := n.attrBool("transpose_b", false)
		if err1 != nil || err2 != nil {
			return nil, 0, fmt.Errorf("bad transpose attrs")
		}
		return matMulKernel{ta, tb}, 1, need(2)
	case "BatchMatMul", "BatchMatMulV2":
		ax, err1 := n.attrBool("adj_x", false)
		ay, err2 := n.attrBool("adj_y", false)
		if err1 != nil || err2 != nil {
			return nil, 0, fmt.Errorf("bad adjoint attrs")
		}
		return batchMatMulKernel{ax, ay}, 1, need(2)
	case "BiasAdd":
		df, err := n.attrString("data_format", "NHWC")
		if err != nil {
			return nil, 0, err
		}
		if df != "NHWC" {
			return nil, 0, fmt.Errorf("data_format %q is not supported", df)
		}
		return biasAddKernel{}, 1, need(2)
	}
	return nil, 0, fmt.Errorf("unsupported op %q", n.op)
}

// checkConv2D accepts the only Conv2D form supported: NHWC with unit
// strides and dilations (the filter must also be 1x1, checked at run).
func checkConv2D(n *gnode) error {
	df, err := n.attrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	if df != "NHWC" {
		return fmt.Errorf("data_format %q is not supported", df)
	}
	for _, key := range []string{"strides", "dilations"} {
		v, err := n.attrInts(key)
		if err != nil {
			return err
		}
		for _, s := range v {
			if s != 1 {
				return fmt.Errorf("%s %v are not supported", key, v)
			}
		}
	}
	return nil
}
