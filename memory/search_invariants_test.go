package memory_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
)

// searchModes are every way a search ranks: each mode, and hybrid in each
// profile (the conversation profile with its extra rankings and a ranker).
var searchModes = []struct {
	name string
	req  amem.SearchRequest
}{
	{"vector", amem.SearchRequest{Mode: amem.SearchVector}},
	{"lexical", amem.SearchRequest{Mode: amem.SearchLexical}},
	{"hybrid", amem.SearchRequest{Mode: amem.SearchHybrid}},
	{"general", amem.SearchRequest{Mode: amem.SearchHybrid, Profile: amem.ProfileGeneral}},
	{"conversation", amem.SearchRequest{Mode: amem.SearchHybrid, Profile: amem.ProfileConversation}},
}

// invariantMemory holds n notes of random words in namespace ns, some of
// them copies of others in another case and punctuation, with the
// conversation profile's rankings and a ranker in its options.
func invariantMemory(t *testing.T, r *rand.Rand, ns string, n int, speaker bool) (*memory.Memory, []string) {
	t.Helper()
	mem := openOpts(t, filepath.Join(t.TempDir(), "inv.db"), memory.Options{
		Embedder: lexical.New(nil), Logger: quiet, Search: memory.SearchOptions{
			LexicalWeight: 4, ReplyWeight: 1.5, FeedbackWeight: 2,
			Ranker: &memory.Ranker{Weights: map[string]float64{"length": 1, "fused": 50, "rrf:reply": 30}},
		},
	})
	t.Cleanup(func() { mem.Close() })
	words := strings.Fields("garden river apple stone cloud music paper window bread horse candle forest dog walk vet rex alice budget")
	t0 := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	var texts []string
	for i := range n {
		var b strings.Builder
		if speaker {
			b.WriteString([]string{"Ada: ", "Bo: "}[i%2])
		}
		for range 2 + r.IntN(8) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		text := strings.TrimSpace(b.String())
		if i > 0 && r.IntN(10) == 0 {
			text = strings.ToUpper(texts[r.IntN(len(texts))]) + "!" // the same words
		}
		texts = append(texts, text)
		if _, err := mem.Add(context.Background(), amem.AddRequest{Namespace: ns, Content: text, EventTime: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	return mem, texts
}

func searchIDs(t *testing.T, mem *memory.Memory, req amem.SearchRequest) ([]string, []amem.Result) {
	t.Helper()
	req.LinksPerHit = -1
	res, err := mem.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("search %+v: %v", req, err)
	}
	ids := make([]string, len(res))
	for i, x := range res {
		ids[i] = x.Note.ID
		if x.Score < 0 || x.Score > 1 {
			t.Fatalf("search %q: score %v is no relevance", req.Query, x.Score)
		}
	}
	return ids, res
}

// A note's own content as the query returns that note (or one with the
// very same words) first, in every mode and profile; and the first n hits
// of a search are the first n of any search for more, past the first
// depth's candidates too.
func TestSearchInvariants(t *testing.T) {
	for _, speaker := range []bool{false, true} {
		r := rand.New(rand.NewPCG(3, 4))
		mem, texts := invariantMemory(t, r, "inv", 260, speaker)
		if p, _ := mem.SearchProfile(context.Background(), "inv", ""); (p.Profile == amem.ProfileConversation) != speaker {
			t.Fatalf("turns %v: profile %+v", speaker, p)
		}
		same := func(a, b string) bool {
			return strings.Join(strings.FieldsFunc(strings.ToLower(a), isSep), " ") == strings.Join(strings.FieldsFunc(strings.ToLower(b), isSep), " ")
		}
		for _, m := range searchModes {
			for i, text := range texts {
				if i%3 != 0 {
					continue
				}
				req := m.req
				req.Namespace, req.Query, req.K = "inv", text, 5
				_, res := searchIDs(t, mem, req)
				if len(res) == 0 || !same(res[0].Note.Content, text) {
					t.Fatalf("turns %v, %s: own text %q: first %+v", speaker, m.name, text, res)
				}
			}
			for q := range 12 {
				req := m.req
				req.Namespace, req.Query = "inv", texts[q*7][:len(texts[q*7])/2]+" river"
				var longest []string
				for _, k := range []int{1000, 200, 60, 51, 50, 20, 5, 1} {
					req.K = k
					ids, _ := searchIDs(t, mem, req)
					if longest == nil {
						longest = ids
						continue
					}
					if !slices.Equal(ids, longest[:min(k, len(longest))]) {
						t.Fatalf("turns %v, %s %q: k=%d gives %v,\nnot the first %d of k=1000's %v", speaker, m.name, req.Query, k, ids, k, longest)
					}
				}
			}
		}
	}
}

func isSep(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }

// MinScore drops weaker hits and still fills k from those above it; a
// floor out of [0, 1] is refused.
func TestSearchMinScore(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	mem, _ := invariantMemory(t, r, "min", 120, false)
	for _, m := range searchModes {
		req := m.req
		req.Namespace, req.Query, req.K = "min", "garden river apple", 30
		_, all := searchIDs(t, mem, req)
		if len(all) < 10 {
			t.Fatalf("%s: %d hits", m.name, len(all))
		}
		floor := all[len(all)/2].Score
		req.MinScore, req.K = floor, 1000
		_, above := searchIDs(t, mem, req)
		var want []string
		for _, h := range all {
			if h.Score >= floor {
				want = append(want, h.Note.ID)
			}
		}
		var got []string
		for _, h := range above {
			if h.Score < floor {
				t.Fatalf("%s: %v below the floor %v", m.name, h.Score, floor)
			}
			got = append(got, h.Note.ID)
		}
		if len(got) < len(want) || !slices.Equal(got[:len(want)], want) && m.name != "conversation" {
			t.Fatalf("%s, min score %v: %v, want %v first", m.name, floor, got, want)
		}
	}
	for _, bad := range []float64{-0.1, 1.5} {
		_, err := mem.Search(context.Background(), amem.SearchRequest{Namespace: "min", Query: "garden", MinScore: bad})
		if !errors.Is(err, amem.ErrInvalid) {
			t.Fatalf("min score %v: %v, want ErrInvalid", bad, err)
		}
	}
	_, err := mem.Search(context.Background(), amem.SearchRequest{Namespace: "min", Query: "garden", Profile: "dialogue"})
	if !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("profile dialogue: %v, want ErrInvalid", err)
	}
}

// The profile follows what the namespace holds: half of its notes
// dialogue turns make it a conversation; the options and the request
// override it.
func TestSearchProfileFollowsTheNotes(t *testing.T) {
	ctx := context.Background()
	mem := openOpts(t, filepath.Join(t.TempDir(), "p.db"), memory.Options{Embedder: lexical.New(nil), Logger: quiet})
	defer mem.Close()
	profile := func(want amem.Profile) amem.ProfileInfo {
		t.Helper()
		p, err := mem.SearchProfile(ctx, "p", want)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	add := func(text string) amem.Note {
		n, err := mem.Add(ctx, amem.AddRequest{Namespace: "p", Content: text})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	add("Prefers aisle seats on long flights.")
	add("Caroline: I went to the support group yesterday.")
	if p := profile(""); p.Profile != amem.ProfileGeneral || !p.Auto || p.Turns != 1 || p.Notes != 2 {
		t.Fatalf("one turn of two: %+v", p)
	}
	turn := add("Melanie: That sounds great, how was it?")
	if p := profile(""); p.Profile != amem.ProfileConversation || p.Turns != 2 || !strings.Contains(p.Reason(), "2 of 3") {
		t.Fatalf("two turns of three: %+v (%s)", p, p.Reason())
	}
	if p := profile(amem.ProfileGeneral); p.Profile != amem.ProfileGeneral || p.Auto {
		t.Fatalf("asked for general: %+v", p)
	}
	if err := mem.Delete(ctx, "p", turn.ID); err != nil {
		t.Fatal(err)
	}
	if p := profile(""); p.Profile != amem.ProfileGeneral || p.Turns != 1 {
		t.Fatalf("after deleting a turn: %+v", p)
	}
	if _, err := mem.SearchProfile(ctx, "p", "chat"); !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("profile chat: %v", err)
	}
}
