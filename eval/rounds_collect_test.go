//go:build collect

// The collector of the fresh rounds (4, 5) and the tuning-half dump are
// tools, not tests of the tree: they build only with -tags collect, so
// that the suite never carries a test that skips.

package eval

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/offline"
)

//go:embed testdata/supersede/round4.jsonl
var round4JSONL []byte

//go:embed testdata/supersede/round5.jsonl
var round5JSONL []byte

// freshRounds are the rounds of new memories a collection can add after
// the agent set: the file, the prefix of its IDs and the namespace.
var freshRounds = map[string]struct {
	data      []byte
	file      string
	prefix    string
	namespace string
}{
	"4": {round4JSONL, "round4.jsonl", "r", "round4"},
	"5": {round5JSONL, "round5.jsonl", "s", "round5"},
}

// shownPair is one candidate the offline curator was shown with a new
// note while a fresh round's store was filled, and what the rule said of
// it.
type shownPair struct {
	Old      NeighbourNote `json:"old"`
	New      NeighbourNote `json:"new"`
	Cosine   float64       `json:"cosine"`
	Fires    bool          `json:"fires"`
	Reason   string        `json:"reason"`
	Position int           `json:"position"`
}

// TestCollectRound rebuilds the collector of LABELLING.md for a fresh
// round (AMEM_SUPERSEDE_ROUND, 4 when unset): the agent set's memories
// and then the round's (round4.jsonl, round5.jsonl), in file order, one a
// minute, are added through a Memory with the product's offline options
// and a recording Supersedes that logs every candidate shown with each of
// the round's notes, asks the rule in the tree about it and supersedes
// nothing. It runs only when AMEM_SUPERSEDE_COLLECT names the JSONL file
// to write (it is not a test of the tree: it writes the collection that
// the round's pairs are drawn from).
func TestCollectRound(t *testing.T) {
	out := os.Getenv("AMEM_SUPERSEDE_COLLECT")
	if out == "" {
		t.Skip("AMEM_SUPERSEDE_COLLECT names the file to write")
	}
	name := os.Getenv("AMEM_SUPERSEDE_ROUND")
	if name == "" {
		name = "4"
	}
	round, ok := freshRounds[name]
	if !ok {
		t.Fatalf("no fresh round %q", name)
	}
	agent, err := AgentMemories()
	if err != nil {
		t.Fatal(err)
	}
	type memory struct{ ID, Text string }
	fresh, err := readJSONL[memory](round.data, round.file)
	if err != nil {
		t.Fatal(err)
	}
	idOf := map[string]string{}
	var notes []memory
	for _, n := range agent.Spaces[0].Notes {
		notes = append(notes, memory{ID: n.Units[0], Text: n.Content})
	}
	notes = append(notes, fresh...)
	for _, n := range notes {
		if idOf[n.Text] != "" {
			t.Fatalf("two notes say %q", n.Text)
		}
		idOf[n.Text] = n.ID
	}
	var (
		mu    sync.Mutex
		shown []shownPair
		pos   = map[string]int{}
	)
	record := func(note amem.Note, cand amem.Candidate) (string, bool) {
		newID := idOf[note.Content]
		if !strings.HasPrefix(newID, round.prefix) {
			return "", false
		}
		why, ok := offline.FactSupersedes(note, cand)
		mu.Lock()
		pos[newID]++
		shown = append(shown, shownPair{
			Old:      NeighbourNote{ID: idOf[cand.Note.Content], Text: cand.Note.Content},
			New:      NeighbourNote{ID: newID, Text: note.Content},
			Cosine:   cand.Similarity,
			Fires:    ok,
			Reason:   why,
			Position: pos[newID],
		})
		mu.Unlock()
		return "", false
	}
	opts := productOptions(t)
	opts.Curator = offline.New(opts.Embedder, &offline.Options{Supersedes: record})
	mem := openMemory(t, opts)
	ctx := context.Background()
	for i, n := range notes {
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: round.namespace, Content: n.Text, EventTime: agentEpoch.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, p := range shown {
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pairs shown with round %s's notes", len(shown), name)
}

// tunePair is a pair of a tuning half with its cosine, for tuning the
// rule without the model (TestDumpTuningHalves).
type tunePair struct {
	File    string    `json:"file"`
	ID      string    `json:"id"`
	Label   string    `json:"label"`
	Old     string    `json:"old"`
	New     string    `json:"new"`
	OldTime time.Time `json:"old_time"`
	NewTime time.Time `json:"new_time"`
	Cosine  float64   `json:"cosine"`
}

// TestDumpTuningHalves writes the tuning data with their cosines to the
// file AMEM_SUPERSEDE_TUNING names, so that the rule can be tuned on it
// without the model: the tuning half of pairs.jsonl (never a held-out
// pair) and every pair of neighbours.jsonl, whose held-out halves and
// round 4 have each been measured and looked at (LABELLING.md, Round 5).
func TestDumpTuningHalves(t *testing.T) {
	out := os.Getenv("AMEM_SUPERSEDE_TUNING")
	if out == "" {
		t.Skip("AMEM_SUPERSEDE_TUNING names the file to write")
	}
	ctx := context.Background()
	cfg := SupersedeConfig{Embedder: productOptions(t).Embedder}
	pairs, err := SupersedePairs()
	if err != nil {
		t.Fatal(err)
	}
	var tune []tunePair
	var texts []string
	for _, p := range pairs {
		if !p.HeldOut() {
			tune = append(tune, tunePair{File: "pairs", ID: p.ID, Label: p.Label, Old: p.Old.Text, New: p.New.Text, OldTime: p.Old.Time, NewTime: p.New.Time})
		}
	}
	path, ok := locomoDevData()
	if !ok {
		t.Fatal("no LoCoMo file")
	}
	convs, err := locomo.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ns, _, err := NeighbourPairs(convs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ns {
		tune = append(tune, tunePair{File: "neighbours", ID: p.ID, Label: p.Label, Old: p.Old.Text, New: p.New.Text})
	}
	for _, p := range tune {
		texts = append(texts, p.Old, p.New)
	}
	vecs, err := embedPairs(ctx, cfg.Embedder, texts, "tuning")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for i := range tune {
		tune[i].Cosine = cosine(vecs[2*i], vecs[2*i+1])
		if err := enc.Encode(tune[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tuning pairs", len(tune))
}
