package uselite

import (
	"slices"
	"strings"
	"testing"
)

func ft(shape []int, v ...float32) *tensor {
	t := &tensor{}
	if err := t.setF(shape); err != nil {
		panic(err)
	}
	copy(t.f, v)
	return t
}

func it(shape []int, v ...int32) *tensor {
	t := &tensor{}
	if err := t.setI(shape); err != nil {
		panic(err)
	}
	copy(t.i, v)
	return t
}

func bt(shape []int, v ...bool) *tensor {
	t := &tensor{}
	if err := t.setB(shape); err != nil {
		panic(err)
	}
	copy(t.b, v)
	return t
}

// run1 runs a kernel with fresh outputs and returns the first.
func run1(t *testing.T, k kernel, in ...*tensor) *tensor {
	t.Helper()
	o := &tensor{}
	if err := k.run(&env{}, in, []*tensor{o}); err != nil {
		t.Fatalf("%T: %v", k, err)
	}
	return o
}

func wantF(t *testing.T, got *tensor, shape []int, v ...float32) {
	t.Helper()
	if got.dt != dtFloat32 || !slices.Equal(got.shape(), shape) || !slices.Equal(got.f[:got.size()], v) {
		t.Errorf("got %v %v, want float32%v %v", got, got.f[:got.size()], shape, v)
	}
}

func wantI(t *testing.T, got *tensor, shape []int, v ...int32) {
	t.Helper()
	if got.dt != dtInt32 || !slices.Equal(got.shape(), shape) || !slices.Equal(got.i[:got.size()], v) {
		t.Errorf("got %v %v, want int32%v %v", got, got.i[:got.size()], shape, v)
	}
}

func TestBroadcastOps(t *testing.T) {
	x := ft([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	wantF(t, run1(t, binaryKernel{opAdd}, x, ft([]int{3}, 10, 20, 30)), []int{2, 3}, 11, 22, 33, 14, 25, 36)
	wantF(t, run1(t, binaryKernel{opSub}, x, ft([]int{2, 1}, 1, 2)), []int{2, 3}, 0, 1, 2, 2, 3, 4)
	wantF(t, run1(t, binaryKernel{opMul}, ft(nil, 2), x), []int{2, 3}, 2, 4, 6, 8, 10, 12)
	wantF(t, run1(t, binaryKernel{opDiv}, ft([]int{3, 1}, 1, 2, 4), ft([]int{1, 2}, 1, 2)), []int{3, 2}, 1, 0.5, 2, 1, 4, 2)
	wantF(t, run1(t, binaryKernel{opMax}, x, ft(nil, 3.5)), []int{2, 3}, 3.5, 3.5, 3.5, 4, 5, 6)
	wantI(t, run1(t, binaryKernel{opAdd}, it([]int{2}, 1, 2), it([]int{2, 1}, 10, 20)), []int{2, 2}, 11, 12, 21, 22)
	g := run1(t, binaryKernel{opGreater}, it([]int{3}, -1, 0, 5), it(nil, -1))
	if !slices.Equal(g.b[:3], []bool{false, true, true}) {
		t.Errorf("Greater = %v", g.b[:3])
	}
	if err := (binaryKernel{opAdd}).run(&env{}, []*tensor{x, ft([]int{2}, 1, 2)}, []*tensor{{}}); err == nil {
		t.Error("[2,3] + [2] did not fail")
	}
}

func TestReduceOps(t *testing.T) {
	x := ft([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	wantF(t, run1(t, reduceKernel{op: redSum}, x, it([]int{1}, 1)), []int{2}, 6, 15)
	wantF(t, run1(t, reduceKernel{op: redMean, keepDims: true}, x, it([]int{1}, -1)), []int{2, 1}, 2, 5)
	wantF(t, run1(t, reduceKernel{op: redMax}, x, it([]int{1}, 0)), []int{3}, 4, 5, 6)
	wantF(t, run1(t, reduceKernel{op: redProd}, x, it([]int{2}, 0, 1)), []int{}, 720)
	wantI(t, run1(t, reduceKernel{op: redMax}, it([]int{0, 2}), it(nil, 0)), []int{2}, -1<<31, -1<<31)
}

func TestStridedSlice(t *testing.T) {
	x := it([]int{3, 4}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	// x[:, 1] with shrink on axis 1
	wantI(t, run1(t, stridedSliceKernel{beginMask: 1, endMask: 1, shrinkMask: 2}, x, it([]int{2}, 0, 1), it([]int{2}, 0, 2), it([]int{2}, 1, 1)), []int{3}, 1, 5, 9)
	// x[::-1, 1:3]
	wantI(t, run1(t, stridedSliceKernel{beginMask: 1, endMask: 1}, x, it([]int{2}, 0, 1), it([]int{2}, 0, 3), it([]int{2}, -1, 1)), []int{3, 2}, 9, 10, 5, 6, 1, 2)
	// x[-1] (shrink), then a new axis
	wantI(t, run1(t, stridedSliceKernel{shrinkMask: 1, newAxisMask: 2}, x, it([]int{2}, -1, 0), it([]int{2}, 0, 0), it([]int{2}, 1, 1)), []int{1, 4}, 8, 9, 10, 11)
	// Out-of-range shrink index is an error, not a panic.
	if err := (stridedSliceKernel{shrinkMask: 1}).run(&env{}, []*tensor{x, it([]int{1}, 7), it([]int{1}, 8), it([]int{1}, 1)}, []*tensor{{}}); err == nil {
		t.Error("shrink index 7 of 3 did not fail")
	}
}

func TestShapeOps(t *testing.T) {
	x := ft([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	wantI(t, run1(t, shapeKernel{}, x), []int{2}, 2, 3)
	wantF(t, run1(t, reshapeKernel{}, x, it([]int{2}, 3, -1)), []int{3, 2}, 1, 2, 3, 4, 5, 6)
	wantF(t, run1(t, expandDimsKernel{}, x, it(nil, -1)), []int{2, 3, 1}, 1, 2, 3, 4, 5, 6)
	wantF(t, run1(t, squeezeKernel{}, ft([]int{1, 2, 1}, 7, 8)), []int{2}, 7, 8)
	wantF(t, run1(t, transposeKernel{}, x, it([]int{2}, 1, 0)), []int{3, 2}, 1, 4, 2, 5, 3, 6)
	wantF(t, run1(t, packKernel{axis: 1}, ft([]int{2}, 1, 2), ft([]int{2}, 3, 4)), []int{2, 2}, 1, 3, 2, 4)
	wantF(t, run1(t, concatKernel{}, x, ft([]int{2, 1}, 9, 9), it(nil, 1)), []int{2, 4}, 1, 2, 3, 9, 4, 5, 6, 9)
	wantF(t, run1(t, sliceKernel{}, x, it([]int{2}, 1, 1), it([]int{2}, -1, 2)), []int{1, 2}, 5, 6)
	wantI(t, run1(t, rangeKernel{}, it(nil, 0), it(nil, 7), it(nil, 3)), []int{3}, 0, 3, 6)

	a, b := &tensor{}, &tensor{}
	if err := (splitVKernel{num: 2}).run(&env{}, []*tensor{x, it([]int{2}, 1, -1), it(nil, 1)}, []*tensor{a, b}); err != nil {
		t.Fatal(err)
	}
	wantF(t, a, []int{2, 1}, 1, 4)
	wantF(t, b, []int{2, 2}, 2, 3, 5, 6)
	if err := (reshapeKernel{}).run(&env{}, []*tensor{x, it([]int{1}, 4)}, []*tensor{{}}); err == nil {
		t.Error("reshape 6 elements to 4 did not fail")
	}
}

func TestIndexOps(t *testing.T) {
	params := ft([]int{3, 2}, 1, 2, 3, 4, 5, 6)
	wantF(t, run1(t, gatherV2Kernel{}, params, it([]int{2}, 2, 0), it(nil, 0)), []int{2, 2}, 5, 6, 1, 2)
	wantF(t, run1(t, gatherV2Kernel{}, params, it([]int{1}, 1), it(nil, 1)), []int{3, 1}, 2, 4, 6)
	wantF(t, run1(t, gatherNdKernel{}, params, it([]int{2, 2}, 1, 1, 2, 0)), []int{2}, 4, 5)
	// ScatterNd adds duplicates.
	wantF(t, run1(t, scatterNdKernel{}, it([]int{3, 1}, 0, 2, 0), ft([]int{3}, 1, 2, 3), it([]int{1}, 4)), []int{4}, 4, 0, 2, 0)
	wantI(t, run1(t, sparseToDenseKernel{}, it([]int{2, 2}, 0, 1, 1, 0), it([]int{2}, 2, 2), it([]int{2}, 7, 8), it(nil, -1)), []int{2, 2}, -1, 7, 8, -1)
	wantI(t, run1(t, whereKernel{}, bt([]int{2, 2}, true, false, false, true)), []int{2, 2}, 0, 0, 1, 1)

	for name, k := range map[string]struct {
		k  kernel
		in []*tensor
	}{
		"gather":          {gatherV2Kernel{}, []*tensor{params, it([]int{1}, 3), it(nil, 0)}},
		"gather negative": {gatherV2Kernel{}, []*tensor{params, it([]int{1}, -1), it(nil, 0)}},
		"gather_nd":       {gatherNdKernel{}, []*tensor{params, it([]int{1, 2}, 0, 2)}},
		"scatter_nd":      {scatterNdKernel{}, []*tensor{it([]int{1, 1}, 4), ft([]int{1}, 1), it([]int{1}, 4)}},
		"sparse_to_dense": {sparseToDenseKernel{}, []*tensor{it([]int{1, 2}, 0, 5), it([]int{2}, 2, 2), it([]int{1}, 1), it(nil, 0)}},
	} {
		err := k.k.run(&env{}, k.in, []*tensor{{}})
		if err == nil || !strings.Contains(err.Error(), "range") {
			t.Errorf("%s with an out-of-range index: %v", name, err)
		}
	}
}

func TestMatMulOps(t *testing.T) {
	a := ft([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	b := ft([]int{3, 2}, 1, 0, 0, 1, 1, 1)
	wantF(t, run1(t, matMulKernel{}, a, b), []int{2, 2}, 4, 5, 10, 11)
	wantF(t, run1(t, matMulKernel{transB: true}, a, a), []int{2, 2}, 14, 32, 32, 77)
	// Batched, broadcasting a batch of one against two.
	bb := ft([]int{2, 3, 2}, 1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 0, 0)
	wantF(t, run1(t, batchMatMulKernel{}, ft([]int{1, 2, 3}, a.f...), bb), []int{2, 2, 2}, 4, 5, 10, 11, 2, 4, 8, 10)
	wantF(t, run1(t, batchMatMulKernel{adjY: true}, ft([]int{1, 2, 3}, a.f...), ft([]int{1, 2, 3}, a.f...)), []int{1, 2, 2}, 14, 32, 32, 77)
	wantF(t, run1(t, biasAddKernel{}, ft([]int{2, 2}, 1, 2, 3, 4), ft([]int{2}, 10, 20)), []int{2, 2}, 11, 22, 13, 24)
	wantF(t, run1(t, softmaxKernel{}, ft([]int{1, 2}, 0, -1e9)), []int{1, 2}, 1, 0)
	wantF(t, run1(t, castKernel{dtFloat32}, bt([]int{2}, true, false)), []int{2}, 1, 0)
	wantI(t, run1(t, castKernel{dtInt32}, ft([]int{2}, -1.7, 2.9)), []int{2}, -1, 2)
}
