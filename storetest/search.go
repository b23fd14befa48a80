package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

func testMatchIDs(t *testing.T, s amem.Store) {
	ns := newNS("match")
	day := func(i int) time.Time { return base.Add(time.Duration(i) * 24 * time.Hour) }
	mk := func(i int, tags []string, meta map[string]string) amem.Note {
		n := newNote(ns, "match")
		n.EventTime, n.Tags, n.Metadata = day(i), tags, meta
		return n
	}
	n0 := mk(0, []string{"Work", "urgent"}, map[string]string{"source": "chat", "speaker": "ada"})
	n1 := mk(1, []string{"work"}, map[string]string{"source": "chat", "speaker": "bob"})
	n2 := mk(2, []string{"home", "Ärger"}, map[string]string{"source": "email"})
	n3 := mk(3, nil, nil)
	n4 := mk(4, []string{"WORK", "home"}, map[string]string{"source": "Chat"})
	zero := mk(0, []string{"misc"}, nil)
	zero.EventTime = time.Time{}
	insert(t, s, n0, n1, n2, n3, n4, zero)
	elsewhere := mk(2, []string{"work"}, map[string]string{"source": "chat"})
	elsewhere.Namespace = newNS("match-other")
	insert(t, s, elsewhere) // passes the filters, in another namespace
	ids := func(ns ...amem.Note) []string { return sorted(noteIDs(ns)) }

	for _, tc := range []struct {
		name string
		f    amem.Filter
		want []string
	}{
		{"no filter", amem.Filter{}, ids(n0, n1, n2, n3, n4, zero)},
		{"from is inclusive", amem.Filter{From: day(1)}, ids(n1, n2, n3, n4)},
		{"to is exclusive", amem.Filter{To: day(3)}, ids(n0, n1, n2)},
		{"from and to", amem.Filter{From: day(1), To: day(3)}, ids(n1, n2)},
		{"a nanosecond after", amem.Filter{From: day(1).Add(1), To: day(3).Add(1)}, ids(n2, n3)},
		{"bounds in another zone", amem.Filter{From: day(1).UTC(), To: day(2).In(time.FixedZone("X", -7*3600))}, ids(n1)},
		{"empty range", amem.Filter{From: day(2), To: day(2)}, ids()},
		{"far bounds", amem.Filter{From: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}, ids(n0, n1, n2, n3, n4)},
		{"one tag, any case", amem.Filter{Tags: []string{"work"}}, ids(n0, n1, n4)},
		{"upper-case filter", amem.Filter{Tags: []string{"WORK"}}, ids(n0, n1, n4)},
		{"non-ASCII case", amem.Filter{Tags: []string{"ärger"}}, ids(n2)},
		{"all tags", amem.Filter{Tags: []string{"work", "home"}}, ids(n4)},
		{"all tags, one missing", amem.Filter{Tags: []string{"work", "urgent", "home"}}, ids()},
		{"unknown tag", amem.Filter{Tags: []string{"nope"}}, ids()},
		{"metadata pair", amem.Filter{Metadata: map[string]string{"source": "chat"}}, ids(n0, n1)},
		{"metadata values are exact", amem.Filter{Metadata: map[string]string{"source": "CHAT"}}, ids()},
		{"metadata pairs", amem.Filter{Metadata: map[string]string{"source": "chat", "speaker": "bob"}}, ids(n1)},
		{"metadata key missing", amem.Filter{Metadata: map[string]string{"mood": "happy"}}, ids()},
		{"everything", amem.Filter{From: day(0), To: day(5), Tags: []string{"Work"}, Metadata: map[string]string{"source": "chat"}}, ids(n0, n1)},
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

// Full-text search is Memory's (an index per namespace in each process,
// following the store's change feed), so the lexical tests search through
// a Memory over the store: they check that the store feeds it every note's
// text, changes and deletions included, and that filters pass exactly the
// notes MatchIDs passes.

// fourDims embeds nothing a lexical test asks about; it only matches the
// dimensions of newNote's vectors.
type fourDims struct{}

func (fourDims) Name() string    { return "storetest-4" }
func (fourDims) Dimensions() int { return 4 }
func (fourDims) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0, 0}
	}
	return out, nil
}

// memoryOver opens a Memory over s, left open: closing it would close s.
func memoryOver(t *testing.T, s amem.Store) *memory.Memory {
	t.Helper()
	m, err := memory.Open(t.Context(), s, &memory.Options{Embedder: fourDims{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func lexical(t *testing.T, m *memory.Memory, ns, q string, limit int) []amem.Scored {
	t.Helper()
	return lexicalIn(t, m, ns, q, amem.Filter{}, limit)
}

func lexicalIn(t *testing.T, m *memory.Memory, ns, q string, f amem.Filter, limit int) []amem.Scored {
	t.Helper()
	hits, err := lexicalErr(m, ns, q, f, limit)
	if err != nil {
		t.Fatalf("lexical search %q, %+v: %v", q, f, err)
	}
	return hits
}

func lexicalErr(m *memory.Memory, ns, q string, f amem.Filter, limit int) ([]amem.Scored, error) {
	res, err := m.Search(context.Background(), amem.SearchRequest{Namespace: ns, Query: q, K: limit,
		Mode: amem.SearchLexical, Filter: f, LinksPerHit: -1})
	if err != nil {
		return nil, err
	}
	hits := make([]amem.Scored, len(res))
	for i, r := range res {
		hits[i] = amem.Scored{ID: r.Note.ID, Score: r.Score}
	}
	return hits, nil
}

func testLexicalSearch(t *testing.T, s amem.Store) {
	m := memoryOver(t, s)
	ns := newNS("lex")
	short := newNote(ns, "The fox jumped.")
	long := newNote(ns, "A long note about the river, the mountains, the valley, the weather and the fox that was seen once near the old mill by the farmer's daughter")
	plural := newNote(ns, "Two foxes and a badger")
	other := newNote(ns, "Nothing relevant here at all")
	for _, n := range []*amem.Note{&short, &long, &plural, &other} {
		n.Keywords, n.Tags, n.Context = nil, nil, ""
	}
	insert(t, s, short, long, plural, other)

	hits := lexical(t, m, ns, "fox", 10)
	got := scoredIDs(hits)
	if !slices.Contains(got, short.ID) || !slices.Contains(got, long.ID) {
		t.Fatalf("search for fox: %v, want %s and %s", got, short.ID, long.ID)
	}
	if slices.Contains(got, other.ID) {
		t.Errorf("search for fox found the unrelated note")
	}
	if got[0] != short.ID {
		t.Errorf("the short note about a fox should rank first: %+v", hits)
	}
	for i, h := range hits {
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("scores are not descending: %+v", hits)
		}
	}
	if slices.Index(got, short.ID) > slices.Index(got, long.ID) {
		t.Errorf("BM25 should prefer the short note: %+v", hits)
	}
	if !slices.Contains(scoredIDs(lexical(t, m, ns, "FOX", 10)), short.ID) {
		t.Errorf("search is case-sensitive")
	}
	if !slices.Contains(scoredIDs(lexical(t, m, ns, "foxes", 10)), short.ID) {
		t.Errorf("search does not stem: foxes did not find fox")
	}
	// Any word may match.
	if got := scoredIDs(lexical(t, m, ns, "badger mill", 10)); !slices.Contains(got, plural.ID) || !slices.Contains(got, long.ID) {
		t.Errorf("search for badger mill: %v, want %s and %s", got, plural.ID, long.ID)
	}
	if got := lexical(t, m, ns, "fox", 1); len(got) != 1 {
		t.Errorf("limit 1: %d hits", len(got))
	}
	if got := lexical(t, m, ns, "zyzzyva", 10); len(got) != 0 {
		t.Errorf("search for an absent word: %+v", got)
	}
}

// testLexicalSearchFilter checks that the filter is part of the ranking,
// not applied to a window of it: the notes that pass it are found however
// many better-ranked notes fail it, in the order (and with the scores) the
// unfiltered ranking gives them.
func testLexicalSearchFilter(t *testing.T, s amem.Store) {
	m := memoryOver(t, s)
	ns := newNS("lexfilter")
	day := func(i int) time.Time { return base.Add(time.Duration(i) * 24 * time.Hour) }
	var notes, rare, ranged []amem.Note
	// 300 notes that say "garden" again and again outrank the 5 tagged
	// rare that say it once among other words, and the 5 in the range.
	for i := range 300 {
		n := newNote(ns, strings.Repeat("garden ", 1+i%7)+"plot")
		n.Keywords, n.Tags, n.Context = []string{}, []string{"common"}, ""
		n.EventTime = day(100 + i%50)
		n.Metadata = map[string]string{"source": "chat", "n": strconv.Itoa(i % 3)}
		notes = append(notes, n)
	}
	for i := range 5 {
		n := newNote(ns, fmt.Sprintf("a long walk past the river, the mill, the bridge and a garden, day %d", i))
		n.Keywords, n.Tags, n.Context = []string{}, []string{[]string{"rare", "Rare", "RARE"}[i%3], "walk"}, ""
		n.EventTime = day(200 + i)
		n.Metadata = map[string]string{"source": "email"}
		rare = append(rare, n)
	}
	for i := range 5 {
		n := newNote(ns, fmt.Sprintf("the garden in spring, the path and the gate, entry %d", i))
		n.Keywords, n.Tags, n.Context = []string{}, []string{"diary"}, ""
		n.EventTime = day(10 + 2*i) // days 10-18: inside [10, 19)
		ranged = append(ranged, n)
	}
	untimed := newNote(ns, "garden")
	untimed.EventTime, untimed.Tags = time.Time{}, []string{"rare"}
	insert(t, s, append(append(append(notes, rare...), ranged...), untimed)...)

	all := lexical(t, m, ns, "garden", amem.MaxK)
	if len(all) != len(notes)+len(rare)+len(ranged)+1 {
		t.Fatalf("unfiltered search for garden: %d hits, want %d", len(all), len(notes)+len(rare)+len(ranged)+1)
	}
	// want is the unfiltered ranking restricted to the notes MatchIDs
	// passes, cut at limit: what a filtered search must return.
	want := func(f amem.Filter, limit int) []amem.Scored {
		var ids []string
		view(t, s, func(tx amem.Tx) error {
			var err error
			ids, err = tx.MatchIDs(ns, f)
			return err
		})
		var out []amem.Scored
		for _, h := range all {
			if slices.Contains(ids, h.ID) && len(out) < limit {
				out = append(out, h)
			}
		}
		return out
	}
	ids := func(ns ...amem.Note) []string { return sorted(noteIDs(ns)) }

	for _, tc := range []struct {
		name string
		f    amem.Filter
		want []string // every note that passes, when there are at most 10
	}{
		{"rare tag", amem.Filter{Tags: []string{"rare"}}, ids(append(slices.Clone(rare), untimed)...)},
		{"rare tag, upper case", amem.Filter{Tags: []string{"RARE", "walk"}}, ids(rare...)},
		{"from and to", amem.Filter{From: day(10), To: day(19)}, ids(ranged...)},
		{"from and to, a nanosecond later", amem.Filter{From: day(10).Add(1), To: day(18).Add(1)}, ids(ranged[1:]...)},
		{"to only", amem.Filter{To: day(19)}, ids(ranged...)},
		{"from only", amem.Filter{From: day(200)}, ids(rare...)},
		{"metadata", amem.Filter{Metadata: map[string]string{"source": "email"}}, ids(rare...)},
		{"everything", amem.Filter{From: day(201), To: day(203), Tags: []string{"Rare"}, Metadata: map[string]string{"source": "email"}}, ids(rare[1:3]...)},
		{"nothing passes", amem.Filter{Tags: []string{"rare", "diary"}}, ids()},
		{"metadata pairs", amem.Filter{Metadata: map[string]string{"source": "chat", "n": "1"}}, nil},
		{"tag and range", amem.Filter{Tags: []string{"common"}, From: day(120), To: day(125)}, nil},
		{"no filter", amem.Filter{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, limit := range []int{1, 3, 10, 1000} {
				got := lexicalIn(t, m, ns, "garden", tc.f, limit)
				if w := want(tc.f, limit); !slices.Equal(got, w) {
					t.Errorf("LexicalSearch(garden, %+v, %d) = %v,\nwant the unfiltered ranking's %v", tc.f, limit, got, w)
				}
				if tc.want != nil && limit >= 10 {
					if got := sorted(scoredIDs(got)); !slices.Equal(got, tc.want) {
						t.Errorf("LexicalSearch(garden, %+v, %d) = %v, want %v", tc.f, limit, got, tc.want)
					}
				}
			}
		})
	}

	// However many terms a filter has, it is no error: a store must not
	// build an expression that grows with them (Memory takes at most
	// MaxFilterTerms; other callers of a store may not bound them).
	many := amem.Filter{Tags: slices.Repeat([]string{"RARE", "rare"}, 500)}
	view(t, s, func(tx amem.Tx) error {
		got, err := tx.MatchIDs(ns, many)
		if err != nil || !slices.Equal(sorted(got), ids(append(slices.Clone(rare), untimed)...)) {
			t.Errorf("1000 copies of the tag rare: %v, %v", got, err)
		}
		return nil
	})
	many = amem.Filter{Tags: make([]string, 1000), Metadata: map[string]string{}}
	for i := range many.Tags {
		many.Tags[i] = fmt.Sprintf("tag%d", i)
		many.Metadata[fmt.Sprintf("key%d", i)] = "v"
	}
	view(t, s, func(tx amem.Tx) error {
		if got, err := tx.MatchIDs(ns, many); err != nil || len(got) != 0 {
			t.Errorf("MatchIDs with 1000 tags and 1000 pairs: %v, %v; want nothing", got, err)
		}
		return nil
	})
}

func testLexicalSearchFields(t *testing.T, s amem.Store) {
	m := memoryOver(t, s)
	ns := newNS("lexf")
	n := newNote(ns, "plain content")
	n.Keywords = []string{"quokka"}
	n.Tags = []string{"wombat"}
	n.Context = "discusses a platypus"
	insert(t, s, n)
	for _, q := range []string{"plain", "quokka", "wombat", "platypus"} {
		if got := scoredIDs(lexical(t, m, ns, q, 10)); !slices.Equal(got, []string{n.ID}) {
			t.Errorf("search for %q: %v, want [%s]", q, got, n.ID)
		}
	}
}

// hostileQueries are texts that are FTS or SQL syntax somewhere.
var hostileQueries = []string{
	``, `   `, "\t\n", `"`, `""`, `"fox`, `fox"`, `'`, `''`, `fox' OR '1'='1`, `"; DROP TABLE notes; --`,
	`AND`, `OR`, `NOT`, `fox AND`, `AND fox`, `NOT fox`, `fox NOT`, `fox OR OR fox`,
	`*`, `fox*`, `*fox`, `^fox`, `fox^`, `NEAR(`, `NEAR(fox dog)`, `NEAR(fox, 2)`, `NEAR`,
	`-`, `-fox`, `fox -dog`, `+fox`, `(`, `)`, `(fox`, `fox)`, `((fox))`, `()`,
	`content:fox`, `{content context}: fox`, `:`, `fox:`, `col:`, `@@`, `&&`, `||`, `!`, `<->`, `\`, `%`, `_`,
	`🦊`, `🦊 fox`, `fox🦊fox`, "\u0301", "e\u0301", "\x00", "fox\x00dog", "\xff\xfe", "\u200b", "ﬁ",
	strings.Repeat("fox ", 500), strings.Repeat("(", 1000), strings.Repeat(`"`, 999),
}

func testLexicalSearchHostile(t *testing.T, s amem.Store) {
	m := memoryOver(t, s)
	ns := newNS("hostile")
	fox := newNote(ns, "the quick brown fox and the lazy dog")
	insert(t, s, fox)
	for _, q := range hostileQueries {
		hits, err := lexicalErr(m, ns, q, amem.Filter{}, 10)
		if strings.TrimSpace(q) == "" {
			if !errors.Is(err, amem.ErrInvalid) {
				t.Errorf("search %q: %v, want ErrInvalid (an empty query)", q, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("search %q: %v", q, err)
		}
		for _, h := range hits {
			if h.ID != fox.ID {
				t.Errorf("search %q found %q", q, h.ID)
			}
		}
	}
	for _, q := range []string{`"`, `*`, `()`, `🦊`} {
		if hits := lexical(t, m, ns, q, 10); len(hits) != 0 {
			t.Errorf("LexicalSearch(%q) = %+v, want nothing", q, hits)
		}
	}
	// A hostile query didn't hurt the store.
	if got := scoredIDs(lexical(t, m, ns, "fox", 10)); !slices.Equal(got, []string{fox.ID}) {
		t.Errorf("search after hostile queries: %v", got)
	}
}

func testLexicalSearchSync(t *testing.T, s amem.Store) {
	m := memoryOver(t, s)
	ns := newNS("lexsync")
	n, keep := newNote(ns, "an aardvark digs"), newNote(ns, "an aardvark sleeps")
	n.Keywords, n.Tags = []string{"burrow"}, []string{"animals"}
	insert(t, s, n, keep)
	find := func(q string) []string { return sorted(scoredIDs(lexical(t, m, ns, q, 10))) }

	if got := find("aardvark"); len(got) != 2 {
		t.Fatalf("before update: %v", got)
	}
	u := n
	u.Content, u.Keywords, u.Tags, u.Context = "a pangolin rolls", []string{"scales"}, []string{"mammals"}, "zoo visit"
	update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u, n.Version) })
	for q, want := range map[string][]string{
		"aardvark": {keep.ID}, "burrow": {}, "animals": {},
		"pangolin": {n.ID}, "scales": {n.ID}, "mammals": {n.ID}, "zoo": {n.ID},
	} {
		if got := find(q); !slices.Equal(got, sorted(want)) {
			t.Errorf("after update, %q: %v, want %v", q, got, want)
		}
	}
	// An update that changes no text keeps the note findable once.
	u.Enrichment = amem.Enrichment{State: amem.EnrichDone, At: base}
	update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u, u.Version) })
	if got := find("pangolin"); !slices.Equal(got, []string{n.ID}) {
		t.Errorf("after a non-text update: %v", got)
	}
	update(t, s, func(tx amem.Tx) error { return tx.DeleteNote(ns, n.ID) })
	for _, q := range []string{"pangolin", "scales", "zoo"} {
		if got := find(q); len(got) != 0 {
			t.Errorf("after delete, %q: %v", q, got)
		}
	}
	if got := find("aardvark"); !slices.Equal(got, []string{keep.ID}) {
		t.Errorf("after delete, aardvark: %v", got)
	}
}

// embeddedIDs returns the IDs of the namespace's notes that have a
// vector, in ID order.
func embeddedIDs(tx amem.Tx, ns string) ([]string, error) {
	ids, err := tx.MatchIDs(ns, amem.Filter{})
	if err != nil {
		return nil, err
	}
	var out []string
	err = tx.EmbeddingsOf(ns, ids, func(id string, _ []float32) error {
		out = append(out, id)
		return nil
	})
	slices.Sort(out)
	return out, err
}

// EmbeddingsOf streams each vector of the notes asked for once, skips
// notes without one, stops at fn's error, and reads nothing of another
// namespace.
func testEmbeddings(t *testing.T, s amem.Store) {
	ns := newNS("emb")
	want := map[string][]float32{}
	var notes []amem.Note
	for i := 0; i < 50; i++ {
		n := newNote(ns, "embedded")
		if i%5 == 0 {
			n.Embedding = nil
		} else {
			n.Embedding = make([]float32, 16)
			for j := range n.Embedding {
				n.Embedding[j] = float32(i*100+j) / 7
			}
			want[n.ID] = n.Embedding
		}
		notes = append(notes, n)
	}
	insert(t, s, notes...)
	all := make([]string, len(notes))
	for i, n := range notes {
		all[i] = n.ID
	}
	got := map[string][]float32{}
	view(t, s, func(tx amem.Tx) error {
		return tx.EmbeddingsOf(ns, all, func(id string, vec []float32) error {
			if _, dup := got[id]; dup {
				t.Errorf("note %s streamed twice", id)
			}
			got[id] = slices.Clone(vec) // vec is only valid during the call
			return nil
		})
	})
	if len(got) != len(want) {
		t.Errorf("streamed %d vectors, want %d", len(got), len(want))
	}
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			t.Errorf("note %s: vector %v, want %v", id, got[id], w)
		}
	}

	t.Run("stop", func(t *testing.T) {
		stop := errors.New("stop")
		calls := 0
		err := s.View(t.Context(), func(tx amem.Tx) error {
			return tx.EmbeddingsOf(ns, all, func(string, []float32) error {
				calls++
				if calls == 3 {
					return stop
				}
				return nil
			})
		})
		if !errors.Is(err, stop) || calls != 3 {
			t.Errorf("EmbeddingsOf with fn failing on call 3: err %v after %d calls", err, calls)
		}
	})
	t.Run("of ids", func(t *testing.T) {
		// A note without a vector, an unknown ID, another namespace's
		// note and a repeated ID are skipped or streamed once.
		other := newNote(newNS("emb-other"), "elsewhere")
		other.Embedding = []float32{1, 2}
		insert(t, s, other)
		ids := []string{notes[1].ID, notes[0].ID, notes[2].ID, "nope", other.ID, notes[2].ID}
		of := map[string][]float32{}
		view(t, s, func(tx amem.Tx) error {
			return tx.EmbeddingsOf(ns, ids, func(id string, vec []float32) error {
				if _, dup := of[id]; dup {
					t.Errorf("EmbeddingsOf: note %s streamed twice", id)
				}
				of[id] = slices.Clone(vec)
				return nil
			})
		})
		if len(of) != 2 || !slices.Equal(of[notes[1].ID], want[notes[1].ID]) || !slices.Equal(of[notes[2].ID], want[notes[2].ID]) {
			t.Errorf("EmbeddingsOf = %v, want the vectors of %s and %s", of, notes[1].ID, notes[2].ID)
		}
		view(t, s, func(tx amem.Tx) error {
			return tx.EmbeddingsOf(ns, nil, func(id string, _ []float32) error {
				t.Errorf("EmbeddingsOf(no ids) streamed %s", id)
				return nil
			})
		})
	})
	t.Run("empty namespace", func(t *testing.T) {
		view(t, s, func(tx amem.Tx) error {
			return tx.EmbeddingsOf(newNS("none"), all, func(id string, _ []float32) error {
				t.Errorf("streamed %s from an empty namespace", id)
				return nil
			})
		})
	})
}
