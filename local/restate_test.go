package local

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

// Restatements through the offline default: each labelled pair's second
// text added after the first in a fresh namespace. A pair that differs
// (a negation, a number, a name, a time, a state that ended) must never
// be linked as a restatement; most true restatements should be.
func TestRestatementsOfflineDefault(t *testing.T) {
	dir := needModel(t)
	ctx := context.Background()
	mem, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "r.db"), ModelDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	f, err := os.Open("../enrich/testdata/restatements.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i, same, found := 0, 0, 0
	for sc.Scan() {
		var p struct {
			A, B string
			Same bool
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		i++
		ns := fmt.Sprintf("pair%d", i)
		a, err := mem.Add(ctx, amem.AddRequest{Namespace: ns, Content: p.A})
		if err != nil {
			t.Fatal(err)
		}
		b, err := mem.Add(ctx, amem.AddRequest{Namespace: ns, Content: p.B})
		if err != nil {
			t.Fatal(err)
		}
		vecs, err := mem.Embedder().Embed(ctx, []string{p.A, p.B})
		if err != nil {
			t.Fatal(err)
		}
		cos := cosine(vecs[0], vecs[1])
		restated := len(b.Links) > 0 && b.Links[0].Target == a.ID && strings.HasPrefix(b.Links[0].Reason, memory.RestatementReason)
		t.Logf("same=%v restated=%v cosine=%.3f %q / %q", p.Same, restated, cos, p.A, p.B)
		if restated && !p.Same {
			t.Errorf("false merge: %q linked as restating %q (%s)", p.B, p.A, b.Links[0].Reason)
		}
		if p.Same {
			same++
			if restated {
				found++
			}
		}
	}
	t.Logf("restatements recognised: %d of %d", found, same)
	if found*2 < same {
		t.Errorf("only %d of %d restatements recognised", found, same)
	}
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / (math.Sqrt(aa) * math.Sqrt(bb))
}
