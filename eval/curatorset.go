package eval

import (
	_ "embed"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem/locomo"
)

// The kinds of statement a labelled note is (testdata/curator/LABELLING.md).
var curatorKinds = []string{"decision", "preference", "plan", "fact", "event"}

// CuratorNote is one note of the labelled curator set: its text, when it
// was written, and what a careful reader must find in what the curator
// writes for it.
type CuratorNote struct {
	// ID names the note stably and fixes its half (HeldOut): an agent
	// memory's ID, "n..." for a note written for this set, or
	// "sample_id/dia_id" for a LoCoMo turn.
	ID string
	// Space is the namespace it is written to: "everyday", or the LoCoMo
	// conversation it comes from.
	Space   string
	Content string
	Time    time.Time
	// Kind is decision, preference, plan, fact or event.
	Kind string
	// Subject lists the phrases that name what the note is about; naming
	// any one will do.
	Subject []string
	// Keywords are the phrases a careful reader must see whole.
	Keywords []string
	// Tags are the taxonomy tags that fit (none: no tag fits).
	Tags []string
}

// CuratorHeldOut says whether a note of the curator set is in its held-out
// half: the FNV-1a 32-bit hash of "split:" and its ID is below 2^31. Not
// the parity HeldOut uses: an FNV-1a hash's lowest bit is only the
// parity of how many of its bytes are odd, and the set's LoCoMo turns
// were picked (offline/testdata/LABELLING.md) by a hash that is 0
// modulo 18, so parity would hold out every one of them.
func CuratorHeldOut(id string) bool {
	h := fnv.New32a()
	h.Write([]byte("split:" + id))
	return h.Sum32() < 1<<31
}

// Turn reports whether the note is a LoCoMo dialogue turn ("Speaker: text").
func (n CuratorNote) Turn() bool { return n.Space != curatorEveryday }

const curatorEveryday = "everyday"

// curatorEpoch is when every everyday note of the set was written: the
// day relative dates in them ("next Friday", "last month") resolve from.
var curatorEpoch = time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)

//go:embed testdata/curator/notes.jsonl
var curatorNotesJSONL []byte

// CuratorSet loads the labelled curator set. The LoCoMo turns are
// labelled by reference; their text is read from convs, and without
// convs (nil) they are left out. The notes come in the order they are
// written: the everyday notes in file order, then each conversation's
// labelled turns in dialogue order.
func CuratorSet(convs []locomo.Conversation) ([]CuratorNote, error) {
	type line struct {
		ID       string   `json:"id"`
		Text     string   `json:"text"`
		SampleID string   `json:"sample_id"`
		DiaID    string   `json:"dia_id"`
		Kind     string   `json:"kind"`
		Subject  []string `json:"subject"`
		Keywords []string `json:"keywords"`
		Tags     []string `json:"tags"`
	}
	lines, err := readJSONL[line](curatorNotesJSONL, "curator/notes.jsonl")
	if err != nil {
		return nil, err
	}
	turns := map[string]locomo.Turn{}
	for _, c := range convs {
		for _, t := range c.Turns() {
			turns[c.SampleID+"/"+t.DiaID] = t
		}
	}
	var out []CuratorNote
	seen := map[string]bool{}
	for i, l := range lines {
		bad := func(why string) error {
			return fmt.Errorf("eval: curator/notes.jsonl line %d (%s): %s", i+1, l.ID, why)
		}
		if l.ID == "" || seen[l.ID] {
			return nil, bad("an ID, unique")
		}
		seen[l.ID] = true
		if !slices.Contains(curatorKinds, l.Kind) {
			return nil, bad("kind " + l.Kind + ": use " + strings.Join(curatorKinds, ", "))
		}
		if len(l.Subject) == 0 {
			return nil, bad("no subject")
		}
		n := CuratorNote{ID: l.ID, Kind: l.Kind, Subject: l.Subject, Keywords: l.Keywords, Tags: l.Tags}
		switch {
		case l.SampleID != "" && l.Text == "":
			if l.ID != l.SampleID+"/"+l.DiaID {
				return nil, bad("a LoCoMo turn's ID is sample_id/dia_id")
			}
			if convs == nil {
				continue
			}
			t, ok := turns[l.ID]
			if !ok {
				return nil, bad("no such LoCoMo turn in the data given")
			}
			n.Space, n.Content, n.Time = l.SampleID, t.Content(), t.Time
		case l.SampleID == "" && strings.TrimSpace(l.Text) != "":
			n.Space, n.Content, n.Time = curatorEveryday, l.Text, curatorEpoch
		default:
			return nil, bad("a text, or a LoCoMo sample_id and dia_id")
		}
		out = append(out, n)
	}
	// LoCoMo turns in dialogue order, each conversation after the last,
	// after every everyday note.
	order := map[string]int{}
	for _, c := range convs {
		for i, t := range c.Turns() {
			order[c.SampleID+"/"+t.DiaID] = i
		}
	}
	slices.SortStableFunc(out, func(a, b CuratorNote) int {
		switch {
		case a.Turn() != b.Turn():
			if a.Turn() {
				return 1
			}
			return -1
		case !a.Turn():
			return 0
		}
		if c := strings.Compare(a.Space, b.Space); c != 0 {
			return c
		}
		return order[a.ID] - order[b.ID]
	})
	return out, nil
}
