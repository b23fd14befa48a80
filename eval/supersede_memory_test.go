package eval

import (
	"context"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// The examples of issue 30 through a real Memory with the product's
// options (use-lite and the offline curator, whose default supersession
// rule is offline.FactSupersedes, v6: docs/EVALUATION.md, Round 5): the
// current fact comes first, the old note is marked superseded by the new
// one, and a search as of a time before the change answers with the old
// one.
func TestIssue30ExamplesProductDefault(t *testing.T) {
	ctx := context.Background()
	opts := productOptions(t)
	mem := openMemory(t, opts)
	day := func(d int) time.Time { return time.Date(2026, 3, d, 9, 0, 0, 0, time.UTC) }
	for _, tc := range []struct{ old, new, query string }{
		{"I'm allergic to penicillin.", "I'm not allergic to penicillin after all.", "Am I allergic to penicillin?"},
		{"Dentist appointment at 3pm on Friday.", "The dentist appointment moved to 4pm.", "When is the dentist appointment?"},
		{"I live in Boston.", "I moved to Seattle in March.", "Where do I live?"},
	} {
		ns := validNamespace("issue30-" + tc.old[:8])
		old, err := mem.Add(ctx, amem.AddRequest{Namespace: ns, Content: tc.old, EventTime: day(1)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: ns, Content: "I like tea with breakfast.", EventTime: day(2)}); err != nil {
			t.Fatal(err)
		}
		cur, err := mem.Add(ctx, amem.AddRequest{Namespace: ns, Content: tc.new, EventTime: day(10)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := mem.Get(ctx, ns, old.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.SupersededBy != cur.ID {
			t.Errorf("%q: superseded_by %q, want %s (%q)", tc.old, got.SupersededBy, cur.ID, tc.new)
		}
		rs, err := mem.Search(ctx, amem.SearchRequest{Namespace: ns, Query: tc.query, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 || rs[0].Note.ID != cur.ID {
			t.Errorf("%q: first hit %v, want the current note %q", tc.query, firstContent(rs), tc.new)
		}
		rs, err = mem.Search(ctx, amem.SearchRequest{Namespace: ns, Query: tc.query, K: 3, AsOf: day(5)})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 || rs[0].Note.ID != old.ID {
			t.Errorf("%q as of before the change: first hit %v, want %q", tc.query, firstContent(rs), tc.old)
		}
	}
}

func firstContent(rs []amem.Result) string {
	if len(rs) == 0 {
		return "nothing"
	}
	return rs[0].Note.Content
}
