package storetest

import (
	"slices"
	"testing"

	"github.com/amem-dev/amem"
)

// testCuratorTags checks that a note's curator tags are kept through
// insert and update, spelt as the note's tags, and that an update can
// clear them (a caller's edit makes every tag the caller's).
func testCuratorTags(t *testing.T, s amem.Store) {
	ns := newNS("curated")
	for _, tc := range []struct {
		name          string
		tags, curated []string
		want          []string
	}{
		{"none", []string{"Work"}, nil, nil},
		{"empty", []string{"Work"}, []string{}, nil},
		{"one of two", []string{"Work", "pets"}, []string{"pets"}, []string{"pets"}},
		{"in Tags' order", []string{"a", "B", "c"}, []string{"c", "b"}, []string{"B", "c"}},
		{"other case", []string{"Ärger", "Home"}, []string{"ärger"}, []string{"Ärger"}},
		{"not a tag of the note", []string{"Work"}, []string{"travel"}, nil},
		{"all of them", []string{"x", "y"}, []string{"x", "y"}, []string{"x", "y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newNote(ns, tc.name)
			n.Tags, n.CuratorTags = tc.tags, tc.curated
			insert(t, s, n)
			got := getNote(t, s, ns, n.ID)
			if !slices.Equal(got.CuratorTags, tc.want) || (tc.want == nil) != (got.CuratorTags == nil) {
				t.Errorf("after insert: CuratorTags = %#v, want %#v", got.CuratorTags, tc.want)
			}
			if !slices.Equal(got.Tags, tc.tags) {
				t.Errorf("after insert: Tags = %v, want %v", got.Tags, tc.tags)
			}

			u := got
			u.Tags, u.CuratorTags = append(slices.Clone(tc.tags), "Added"), []string{"added"}
			u.Version++
			update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u, got.Version) })
			if c := getNote(t, s, ns, n.ID).CuratorTags; !slices.Equal(c, []string{"Added"}) {
				t.Errorf("after an update: CuratorTags = %v, want [Added]", c)
			}

			u2 := u
			u2.CuratorTags = nil
			u2.Version++
			update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u2, u.Version) })
			if c := getNote(t, s, ns, n.ID).CuratorTags; c != nil {
				t.Errorf("after an update clearing them: CuratorTags = %#v, want nil", c)
			}
		})
	}
}

// testMatchIDsTagSource checks Filter.TagSource: a caller's tag is one
// of the note's tags that is not a curator's.
func testMatchIDsTagSource(t *testing.T, s amem.Store) {
	ns := newNS("source")
	mk := func(tags, curated []string) amem.Note {
		n := newNote(ns, "source")
		n.Tags, n.CuratorTags = tags, curated
		return n
	}
	byCaller := mk([]string{"Pets", "health"}, nil)
	byCurator := mk([]string{"health", "pets"}, []string{"pets"})
	both := mk([]string{"pets", "Travel"}, []string{"travel"})
	allCurated := mk([]string{"PETS", "travel"}, []string{"pets", "travel"})
	untagged := mk(nil, nil)
	insert(t, s, byCaller, byCurator, both, allCurated, untagged)
	ids := func(ns ...amem.Note) []string { return sorted(noteIDs(ns)) }
	for _, tc := range []struct {
		name string
		f    amem.Filter
		want []string
	}{
		{"any source", amem.Filter{Tags: []string{"pets"}}, ids(byCaller, byCurator, both, allCurated)},
		{"caller", amem.Filter{Tags: []string{"pets"}, TagSource: amem.TagSourceCaller}, ids(byCaller, both)},
		{"caller, other case", amem.Filter{Tags: []string{"PETS"}, TagSource: amem.TagSourceCaller}, ids(byCaller, both)},
		{"curator", amem.Filter{Tags: []string{"pets"}, TagSource: amem.TagSourceCurator}, ids(byCurator, allCurated)},
		{"caller, two tags", amem.Filter{Tags: []string{"pets", "health"}, TagSource: amem.TagSourceCaller}, ids(byCaller)},
		{"caller, one of two the curator's", amem.Filter{Tags: []string{"pets", "travel"}, TagSource: amem.TagSourceCaller}, ids()},
		{"curator, two tags", amem.Filter{Tags: []string{"travel", "pets"}, TagSource: amem.TagSourceCurator}, ids(allCurated)},
		{"curator, one of two the caller's", amem.Filter{Tags: []string{"pets", "health"}, TagSource: amem.TagSourceCurator}, ids()},
		{"source without tags", amem.Filter{TagSource: amem.TagSourceCaller}, ids(byCaller, byCurator, both, allCurated, untagged)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view(t, s, func(tx amem.Tx) error {
				got, err := tx.MatchIDs(ns, tc.f)
				if err != nil {
					return err
				}
				if got = sorted(got); !slices.Equal(got, tc.want) {
					t.Errorf("MatchIDs(%+v) = %v, want %v", tc.f, got, tc.want)
				}
				return nil
			})
		})
	}
}
