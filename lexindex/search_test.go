package lexindex

import (
	"fmt"
	"strings"
	"testing"
)

// Case, diacritics, stemming and scripts without spaces fold as FTS5's
// porter-over-unicode61 tokenizer (with remove_diacritics) folds them.
func TestFolding(t *testing.T) {
	ix := New()
	ix.Upsert("a", Fields{Content: "Un café à Zürich, running late"})
	ix.Upsert("b", Fields{Content: "東京 タワー"})
	for q, want := range map[string]string{
		"CAFE": "a", "zurich": "a", "Cafe\u0301": "a", "runs": "a", "東京": "b",
	} {
		if h := ix.Search(q, 5, nil); len(h) != 1 || h[0].ID != want {
			t.Errorf("search %q = %v; want %s", q, h, want)
		}
	}
}

// hostile are texts that are query syntax somewhere (FTS5, SQL, Lucene):
// here every one is only words and separators.
var hostile = []string{
	``, `   `, "\t\n", `"`, `""`, `"fox`, `fox"`, `'`, `fox' OR '1'='1`, `"; DROP TABLE notes; --`,
	`AND`, `OR`, `NOT fox`, `fox OR OR fox`, `*`, `fox*`, `^fox`, `NEAR(fox dog)`, `NEAR(fox, 2)`,
	`-fox`, `+fox`, `((fox))`, `()`, `content:fox`, `{content context}: fox`, `\`, `%`, `_`,
	`🦊`, `🦊 fox`, `fox🦊fox`, "\u0301", "e\u0301", "\x00", "fox\x00dog", "\xff\xfe", "\u200b", "ﬁ",
	strings.Repeat("fox ", 500), strings.Repeat("(", 1000), strings.Repeat(`"`, 999),
}

func TestHostileQueries(t *testing.T) {
	ix := New()
	ix.Upsert("fox", Fields{Content: "the quick brown fox and the lazy dog"})
	ix.Upsert("other", Fields{Content: "nothing relevant"})
	for _, q := range hostile {
		got := ix.Search(q, 10, nil)
		sameHits(t, fmt.Sprintf("%q", q), got, ix.Exhaustive(q, 10, nil))
		for _, h := range got {
			if h.ID != "fox" {
				t.Errorf("search %q found %q", q, h.ID)
			}
		}
	}
	for _, q := range []string{``, `   `, `"`, `*`, `()`, `🦊`, "\xff\xfe"} {
		if h := ix.Search(q, 10, nil); len(h) != 0 {
			t.Errorf("search %q = %v, want nothing", q, h)
		}
	}
}

// FuzzSearch: no text makes a search fail, and pruning never changes the
// ranking.
func FuzzSearch(f *testing.F) {
	for _, q := range hostile[:20] {
		f.Add(q)
	}
	ix := New()
	for i, s := range []string{"the quick brown fox near the lazy dog", "a fox", "the dog and the cat", "near and far"} {
		ix.Upsert(fmt.Sprint(i), Fields{Content: s, Keywords: []string{"fox"}})
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, k := range []int{1, 2, 10} {
			sameHits(t, fmt.Sprintf("%q k=%d", q, k), ix.Search(q, k, nil), ix.Exhaustive(q, k, nil))
		}
	})
}

// Bytes follows the index's size: it grows with documents, and what
// removals leave behind goes at compaction.
func TestBytes(t *testing.T) {
	ix := New()
	if ix.Bytes() != 0 {
		t.Fatalf("empty index: %d bytes", ix.Bytes())
	}
	for i := range 1000 {
		ix.Upsert(fmt.Sprint(i), Fields{Content: fmt.Sprintf("word%d common words here", i)})
	}
	full := ix.Bytes()
	if full < 1000*(4*12+96) {
		t.Fatalf("1000 documents of 4 distinct terms: %d bytes", full)
	}
	for i := range 900 {
		ix.Remove(fmt.Sprint(i))
	}
	ix.Compact()
	if b := ix.Bytes(); b*5 > full {
		t.Fatalf("after removing 90%% and compacting: %d bytes of %d", b, full)
	}
}
