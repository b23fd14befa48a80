package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestEventTimePlans checks that every read of NotesByEventTime searches
// the index on (ns, event_time) from its key: no full scan of the table
// or of an index, whatever the page.
func TestEventTimePlans(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "plans.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{byEventAsc, byEventAscAfter, byEventDesc, byEventDescAfter, undatedAsc, undatedDesc, undatedDescAfter} {
		rows, err := s.read.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, "ns", "", 10, int64(1), "01H")
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if !strings.HasPrefix(p, "SEARCH notes USING INDEX notes_ns_event (ns=? AND event_time") || strings.Contains(p, "SCAN") {
			t.Errorf("%s\nplan: %s", q[strings.Index(q, "WHERE"):], p)
		}
		t.Logf("%s: %s", q[strings.Index(q, "AND (?2"):], p)
	}
}
