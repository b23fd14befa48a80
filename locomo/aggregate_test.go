package locomo

import (
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestAggregator(t *testing.T) {
	var a Aggregator
	a.Add("f1", 1, 0.5)
	a.Add("f1", 1, 1.0)
	a.Add("recall@5", 2, 0.5)
	a.Add("f1", 4, 0.25)
	a.Add("f1", 2, 0)
	a.Add("f1", 5, 1)
	a.Add("f1", 3, math.NaN())        // ignored
	a.Add("f1", OverallCategory, 0.9) // ignored: reserved

	if m, n := a.Mean("f1", 1); !near(m, 0.75) || n != 2 {
		t.Errorf("Mean(f1, 1) = %v, %d; want 0.75, 2", m, n)
	}
	// Pooled over the four 1-4 values, category 5 left out.
	if m, n := a.Overall("f1"); !near(m, (0.5+1+0.25+0)/4) || n != 4 {
		t.Errorf("Overall(f1) = %v, %d; want 0.4375, 4", m, n)
	}
	if m, n := a.Mean("f1", 3); m != 0 || n != 0 {
		t.Errorf("Mean(f1, 3) = %v, %d; want 0, 0", m, n)
	}
	if m, n := a.Mean("missing", 1); m != 0 || n != 0 {
		t.Errorf("Mean(missing, 1) = %v, %d; want 0, 0", m, n)
	}
	if got, want := a.Metrics(), []string{"f1", "recall@5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Metrics() = %v, want %v", got, want)
	}
	if got, want := a.Categories(), []int{1, 2, 4, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("Categories() = %v, want %v", got, want)
	}

	want := []Row{
		{"f1", 1, "1 multi-hop", 2, 0.75},
		{"f1", 2, "2 temporal", 1, 0},
		{"f1", 4, "4 single-hop", 1, 0.25},
		{"f1", 5, "5 adversarial", 1, 1},
		{"f1", OverallCategory, "1-4 overall", 4, 0.4375},
		{"recall@5", 2, "2 temporal", 1, 0.5},
		{"recall@5", OverallCategory, "1-4 overall", 1, 0.5},
	}
	if got := a.Rows(); !reflect.DeepEqual(got, want) {
		t.Errorf("Rows() =\n%v\nwant\n%v", got, want)
	}

	var b strings.Builder
	if err := a.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	wantTable := "" +
		"metric    1 multi-hop  2 temporal  4 single-hop  5 adversarial  1-4 overall\n" +
		"f1        0.7500 (2)   0.0000 (1)  0.2500 (1)    1.0000 (1)     0.4375 (4)\n" +
		"recall@5  -            0.5000 (1)  -             -              0.5000 (1)\n"
	if b.String() != wantTable {
		t.Errorf("WriteTable:\n%s\nwant\n%s", b.String(), wantTable)
	}
}

func TestAggregatorConcurrent(t *testing.T) {
	var a Aggregator
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				a.Add("m", 1+i%5, 1)
				_ = a.Rows()
			}
		}()
	}
	wg.Wait()
	if m, n := a.Overall("m"); m != 1 || n != 640 {
		t.Errorf("Overall = %v, %d; want 1, 640", m, n)
	}
}

func TestCategoryName(t *testing.T) {
	for c, want := range map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial", 0: "unknown", 6: "unknown"} {
		if got := CategoryName(c); got != want {
			t.Errorf("CategoryName(%d) = %q, want %q", c, got, want)
		}
	}
}
