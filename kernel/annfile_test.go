package kernel

import (
	"errors"
	"testing"

	"github.com/amem-dev/amem/lexindex"
)

// A full-text index file saved by an older amem, whose index kept notes
// otherwise (lexMagic), is stale: the namespace's index is rebuilt from
// the store, never read as this version's.
func TestOlderLexFileIsStale(t *testing.T) {
	dir := t.TempDir()
	lex := lexindex.New()
	lex.Upsert("n1", lexindex.Fields{Content: "Ben's dentist is Dr. Okafor.", Context: "A fact about Ben: Ben's dentist is Dr. Okafor."})
	for _, old := range []string{"AMEMLEXF", "AMEMLEXG"} {
		if err := saveFile(lexPath(dir, "ns"), old, 7, "use-lite", 512, lex); err != nil {
			t.Fatal(err)
		}
		if _, _, err := loadLex(dir, "ns", "use-lite", 512); !errors.Is(err, errStaleIndex) {
			t.Errorf("%s file: load error %v, want a stale index", old, err)
		}
	}
	if err := saveLex(dir, "ns", 7, "use-lite", 512, lex); err != nil {
		t.Fatal(err)
	}
	got, seq, err := loadLex(dir, "ns", "use-lite", 512)
	if err != nil || seq != 7 || got.Len() != 1 {
		t.Errorf("this version's file: feed number %d, error %v", seq, err)
	}
}
