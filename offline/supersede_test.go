package offline

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// The offline curator supersedes nothing by default, and what
// Options.Supersedes says when it is given (the hook for a rule):
// asked about every candidate, its reasons kept.
func TestConnectSupersedesHook(t *testing.T) {
	note := amem.Note{ID: "new", Namespace: "chat", Content: "I'm not allergic to penicillin after all.", Keywords: []string{"penicillin"}}
	cands := []amem.Candidate{
		candidate("old", "I'm allergic to penicillin.", 0.9, "penicillin"),
		candidate("other", "I like tea.", 0.4, "tea"),
	}
	d, err := New(&hashEmbedder{}, nil).Connect(context.Background(), note, cands)
	if err != nil || d.Supersede != nil {
		t.Fatalf("without a rule: %+v, %v", d.Supersede, err)
	}
	var asked atomic.Int32
	c := New(&hashEmbedder{}, &Options{Supersedes: func(n amem.Note, old amem.Candidate) (string, bool) {
		asked.Add(1)
		return "negated by the new note", strings.Contains(n.Content, "not allergic") && strings.Contains(old.Note.Content, "allergic")
	}})
	d, err = c.Connect(context.Background(), note, cands)
	if err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 2 || len(d.Supersede) != 1 || d.Supersede[0] != (amem.Supersession{Target: "old", Reason: "negated by the new note"}) {
		t.Fatalf("asked %d times: %+v", asked.Load(), d.Supersede)
	}
}

// FactSupersedes applies internal/facts' rule to statements and leaves
// dialogue turns alone.
func TestFactSupersedes(t *testing.T) {
	at := func(day int) time.Time { return time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC) }
	old := amem.Note{ID: "old", Content: "I'm allergic to penicillin.", EventTime: at(1)}
	cand := amem.Candidate{Note: old, Similarity: 0.9}
	if reason, ok := FactSupersedes(amem.Note{Content: "I'm not allergic to penicillin after all.", EventTime: at(2)}, cand); !ok || reason == "" {
		t.Errorf("a flipped negation: %v %q, want superseded with a reason", ok, reason)
	}
	if _, ok := FactSupersedes(amem.Note{Content: "I'm allergic to penicillin, and to latex too.", EventTime: at(2)}, cand); ok {
		t.Error("an addition supersedes")
	}
	turn := amem.Candidate{Note: amem.Note{ID: "t", Content: "Caroline: I'm allergic to penicillin.", EventTime: at(1)}, Similarity: 0.9}
	if _, ok := FactSupersedes(amem.Note{Content: "Caroline: I'm not allergic to penicillin after all.", EventTime: at(2)}, turn); ok {
		t.Error("a dialogue turn supersedes another")
	}
}
