package memory_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/searchtune"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/sqlite"
)

func TestRankerValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *memory.Ranker
		want string // "" for valid
	}{
		{"empty", &memory.Ranker{}, ""},
		{"known features", &memory.Ranker{Weights: map[string]float64{"fused": 3, "rrf:lexical": -1, "when-time": 0.5}}, ""},
		{"unknown feature", &memory.Ranker{Weights: map[string]float64{"bm25": 1}}, `unknown feature "bm25"`},
		{"NaN", &memory.Ranker{Weights: map[string]float64{"length": math.NaN()}}, "finite"},
		{"Inf", &memory.Ranker{Weights: map[string]float64{"length": math.Inf(-1)}}, "finite"},
		{"nil", nil, "nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.r.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case c.want != "" && (!errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Validate: %v, want ErrInvalid saying %q", err, c.want)
			}
		})
	}
}

// A ranker that fails Validate is refused by Open and by Search.
func TestRankerInvalidRefused(t *testing.T) {
	bad := &memory.Ranker{Weights: map[string]float64{"nope": 1}}
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = memory.Open(context.Background(), st, &memory.Options{Embedder: lexical.New(nil), Search: memory.SearchOptions{Ranker: bad}, Logger: quiet})
	if !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("Open with an invalid ranker: %v, want ErrInvalid", err)
	}
	mem := rankerMemory(t, nil)
	_, err = mem.Search(searchtune.With(context.Background(), searchtune.Tuning{Ranker: bad}), amem.SearchRequest{Namespace: "ns", Query: "garden"})
	if !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("Search with an invalid ranker: %v, want ErrInvalid", err)
	}
}

// rankerMemory opens a Memory over notes of differing lengths and words,
// with ranker in its options.
func rankerMemory(t *testing.T, ranker *memory.Ranker) *memory.Memory {
	t.Helper()
	mem := openOpts(t, filepath.Join(t.TempDir(), "amem.db"), memory.Options{
		Embedder: lexical.New(nil), Search: memory.SearchOptions{LexicalWeight: 4, ReplyWeight: 1, FeedbackWeight: 1, Ranker: ranker}, Logger: quiet})
	t.Cleanup(func() { mem.Close() })
	words := strings.Fields("garden river apple stone cloud music paper window bread horse candle forest")
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	for i := range 240 {
		var b strings.Builder
		fmt.Fprintf(&b, "Ada: ")
		for j := range 1 + i%9 {
			b.WriteString(words[(i*7+j*3)%len(words)] + " ")
		}
		addAt(t, mem, strings.TrimSpace(b.String()), t0.Add(time.Duration(i)*time.Minute))
	}
	return mem
}

func TestRankerReordersOnlyTheWindow(t *testing.T) {
	ctx := context.Background()
	long := &memory.Ranker{Weights: map[string]float64{"length": 1}}
	mem := rankerMemory(t, long)
	const k = 5
	req := amem.SearchRequest{Namespace: "ns", Query: "garden bread", K: k, LinksPerHit: -1}
	cands, err := mem.RankFeatures(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) == 0 || len(cands) > memory.RankerWindow {
		t.Fatalf("%d candidates, want 1 to %d", len(cands), memory.RankerWindow)
	}
	names := memory.RankFeatureNames()
	length := slices.Index(names, "length")
	// The window's longest notes, ties in fusion order: what the ranker
	// must return.
	want := slices.Clone(cands)
	slices.SortStableFunc(want, func(a, b memory.RankCandidate) int {
		switch {
		case a.Features[length] > b.Features[length]:
			return -1
		case a.Features[length] < b.Features[length]:
			return 1
		}
		return 0
	})
	res, err := mem.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != k {
		t.Fatalf("%d hits, want %d", len(res), k)
	}
	for i, r := range res {
		if r.Note.ID != want[i].ID {
			t.Fatalf("hit %d: %s, want %s (the window's longest, as the ranker orders)", i, r.Note.ID, want[i].ID)
		}
	}
	// The namespace's longest notes outside the window stay out, though
	// the ranker would prefer them: it only re-orders the window.
	in := map[string]bool{}
	for _, c := range cands {
		in[c.ID] = true
	}
	all, err := mem.List(ctx, "ns", amem.ListQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	longer := 0
	for _, n := range all {
		if !in[n.ID] && len(strings.Fields(n.Content)) == 10 {
			longer++
			for _, r := range res {
				if r.Note.ID == n.ID {
					t.Fatalf("hit %s is outside the ranker's window", n.ID)
				}
			}
		}
	}
	if longer == 0 {
		t.Fatal("the test wants long notes outside the window")
	}
}

// NoRanker gives fusion's own order, as a Memory without a ranker does.
func TestNoRankerIsFusionOrder(t *testing.T) {
	ctx := context.Background()
	mem := rankerMemory(t, &memory.Ranker{Weights: map[string]float64{"length": 1, "names": 2}})
	req := amem.SearchRequest{Namespace: "ns", Query: "apple horse candle", K: 10, LinksPerHit: -1}
	cands, err := mem.RankFeatures(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var fused []string
	for _, c := range cands[:10] {
		fused = append(fused, c.ID)
	}
	ranked := hitIDs(t, mem, req)
	req.NoRanker = true
	plain := hitIDs(t, mem, req)
	if !slices.Equal(plain, fused) {
		t.Fatalf("NoRanker: %v, want fusion's first ten %v", plain, fused)
	}
	if slices.Equal(ranked, plain) {
		t.Fatal("the ranker changed nothing: the test shows nothing")
	}
	// A tuning's ranker replaces the options'.
	req.NoRanker = false
	if got := hitIDs(t, mem, req, searchtune.Tuning{Ranker: &memory.Ranker{}}); !slices.Equal(got, fused) {
		t.Fatalf("an all-zero ranker: %v, want fusion's order %v (ties keep it)", got, fused)
	}
}

func TestRankFeatures(t *testing.T) {
	ctx := context.Background()
	mem := rankerMemory(t, nil)
	cands, err := mem.RankFeatures(ctx, amem.SearchRequest{Namespace: "ns", Query: "When did Ada plant the garden?", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	names := memory.RankFeatureNames()
	at := func(c memory.RankCandidate, name string) float64 { return c.Features[slices.Index(names, name)] }
	for i, c := range cands {
		if len(c.Features) != len(names) {
			t.Fatalf("candidate %d: %d features, want %d", i, len(c.Features), len(names))
		}
		if at(c, "fused") != c.Fused || i > 0 && c.Fused > cands[i-1].Fused {
			t.Fatalf("candidate %d: not in fusion order", i)
		}
		if at(c, "speaker") != 1 {
			t.Fatalf("candidate %d: Ada speaks every note and is named in the question", i)
		}
		if ov := at(c, "overlap"); ov < 0 || ov > 1 {
			t.Fatalf("candidate %d: overlap %v", i, ov)
		}
	}
	if at(cands[0], "first:lexical") != 1 || at(cands[0], "rrf:lexical") != 1.0/61 {
		t.Fatalf("the first candidate: first:lexical %v rrf:lexical %v, want the full-text ranking's top hit", at(cands[0], "first:lexical"), at(cands[0], "rrf:lexical"))
	}
	if _, err := mem.RankFeatures(ctx, amem.SearchRequest{Namespace: "ns", Query: "x", Mode: amem.SearchVector}); !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("vector mode: %v, want ErrInvalid", err)
	}
}

// A namespace loaded from saved index files holds the ranker's data of
// the notes changed since only; the rest is read from the store when a
// search first needs it, and gives the same features as a full load.
func TestRankFeaturesAfterSavedLoad(t *testing.T) {
	ctx := context.Background()
	path, dir := filepath.Join(t.TempDir(), "p.db"), t.TempDir()
	const ns = "kept"
	mem := openOpts(t, path, annOptions(300, dir))
	addNotes(t, mem, ns, 0, 600)
	waitApproximate(t, mem, ns)
	features := func(mem *memory.Memory) [][]memory.RankCandidate {
		var out [][]memory.RankCandidate
		for _, q := range []string{"note kept 17", "note 599", "kept 42 300"} {
			c, err := mem.RankFeatures(ctx, amem.SearchRequest{Namespace: ns, Query: q, K: 10, LinksPerHit: -1})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	want := features(mem)
	mem.Close()

	again := openOpts(t, path, annOptions(300, dir))
	defer again.Close()
	got := features(again)
	if again.LexLoads() != 1 {
		t.Fatalf("%d full-text indexes read from files, want 1: the test needs the saved load", again.LexLoads())
	}
	for i := range want {
		if len(got[i]) != len(want[i]) || len(want[i]) == 0 {
			t.Fatalf("query %d: %d candidates after the saved load, %d before", i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if got[i][j].ID != want[i][j].ID || !slices.Equal(got[i][j].Features, want[i][j].Features) {
				t.Fatalf("query %d, candidate %d: %v after the saved load, %v before", i, j, got[i][j], want[i][j])
			}
		}
	}
}
