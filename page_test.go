package amem_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/amem-dev/amem"
)

// EachPage reads page after page from the last ID of the one before,
// stops after a short page, when fn says so, or at an error.
func TestEachPage(t *testing.T) {
	notes := make([]amem.Note, 2*amem.PageSize+3)
	for i := range notes {
		notes[i].ID = fmt.Sprintf("%05d", i)
	}
	list := func(after string, limit int) ([]amem.Note, error) {
		i := 0
		for i < len(notes) && notes[i].ID <= after {
			i++
		}
		return notes[i:min(i+limit, len(notes))], nil
	}
	var seen []string
	err := amem.EachPage(list, func(page []amem.Note) (bool, error) {
		for _, n := range page {
			seen = append(seen, n.ID)
		}
		return true, nil
	})
	if err != nil || len(seen) != len(notes) || seen[len(seen)-1] != notes[len(notes)-1].ID {
		t.Fatalf("walked %d of %d notes: %v", len(seen), len(notes), err)
	}
	pages := 0
	amem.EachPage(list, func([]amem.Note) (bool, error) { pages++; return false, nil })
	if pages != 1 {
		t.Fatalf("fn said stop, %d pages read", pages)
	}
	boom := errors.New("boom")
	if err := amem.EachPage(func(string, int) ([]amem.Note, error) { return nil, boom }, nil); !errors.Is(err, boom) {
		t.Fatalf("list's error: %v", err)
	}
	if err := amem.EachPage(list, func([]amem.Note) (bool, error) { return true, boom }); !errors.Is(err, boom) {
		t.Fatalf("fn's error: %v", err)
	}
}
