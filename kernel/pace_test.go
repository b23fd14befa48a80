package kernel

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestLoadPacerCollects checks that a paced load collects once it has
// allocated its budget, and that a small load is left alone.
func TestLoadPacerCollects(t *testing.T) {
	cycles := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	// 10k notes of 512 dimensions: a budget of 0.35 * 20 MB = 7 MB.
	// With the collector off, only the pacer collects.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	p := newLoadPacer(10_000, 512)
	if p.disabled {
		t.Fatal("a 20 MB load is not paced")
	}
	before := cycles()
	var keep [][]byte
	for i := range 10 * paceEvery {
		// 2 KB of garbage per row, as the driver's blob copies: 20 MB in
		// all, about three budgets.
		b := make([]byte, 2048)
		if i%100 == 0 {
			keep = append(keep, b)
		}
		p.row()
	}
	if got := cycles() - before; got < 2 || got > 4 {
		t.Errorf("%d collections while the load allocated about three budgets; want 2 to 4", got)
	}
	_ = keep

	if !newLoadPacer(1000, 512).disabled {
		t.Error("a 2 MB load is paced")
	}
}
