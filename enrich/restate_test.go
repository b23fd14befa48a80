package enrich

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

type restatementPair struct {
	A, B string
	Same bool
}

func loadRestatements(t testing.TB, path string) []restatementPair {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []restatementPair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p restatementPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, p)
	}
	return out
}

// The fact check alone, on the labelled pairs (testdata/restatements.jsonl:
// everyday memories restated, and near misses that differ in a negation,
// a number, a name, a time or a state that ended): no pair that differs
// may pass, in either order.
func TestRestatesLabelledPairs(t *testing.T) {
	pairs := loadRestatements(t, "testdata/restatements.jsonl")
	found, same := 0, 0
	for _, p := range pairs {
		for _, ab := range [][2]string{{p.A, p.B}, {p.B, p.A}} {
			got := restates(ab[0], ab[1])
			if got && !p.Same {
				t.Errorf("false merge: %q restates %q", ab[0], ab[1])
			}
			if p.Same {
				same++
				if got {
					found++
				}
			}
		}
	}
	t.Logf("restatements recognised by the fact check: %d of %d (pairs both ways)", found, same)
	if found*10 < same*6 {
		t.Errorf("only %d of %d restatements pass the fact check", found, same)
	}
}

func TestFactsOf(t *testing.T) {
	f := factsOf("Caroline didn\u2019t go to the 3pm meeting with Bob; she used to go.")
	if !f.negated || !f.changed {
		t.Errorf("negated %v, changed %v", f.negated, f.changed)
	}
	if len(f.numbers) != 1 || f.numbers[0] != "3pm" {
		t.Errorf("numbers %q", f.numbers)
	}
	if len(f.names) != 2 || f.names[0] != "bob" || f.names[1] != "caroline" {
		t.Errorf("names %q", f.names)
	}
}
