package locomo_test

import (
	"fmt"
	"os"

	"github.com/amem-dev/amem/locomo"
)

func ExampleF1Official() {
	fmt.Printf("%.4f\n", locomo.F1Official("She likes painting and pottery", "pottery, camping, painting", locomo.CategoryMultiHop))
	fmt.Printf("%.4f\n", locomo.F1Official("no", "Likely no; though she likes reading", locomo.CategoryOpenDomain))
	fmt.Printf("%.4f\n", locomo.F1Official("That is not mentioned.", "", locomo.CategoryAdversarial))
	// Output:
	// 0.2667
	// 0.6667
	// 1.0000
}

func ExampleAggregator() {
	var agg locomo.Aggregator
	agg.Add("f1", 1, 0.5)
	agg.Add("f1", 2, 1)
	agg.Add("f1", 5, 1)
	agg.Add("recall@10", 1, 0.5)
	agg.WriteTable(os.Stdout)
	// Output:
	// metric     1 multi-hop  2 temporal  5 adversarial  1-4 overall
	// f1         0.5000 (1)   1.0000 (1)  1.0000 (1)     0.7500 (2)
	// recall@10  0.5000 (1)   -           -              0.5000 (1)
}
