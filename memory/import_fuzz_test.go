package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/amem-dev/amem/memory"
)

// FuzzImport feeds arbitrary lines to Import: it must never panic, and a
// rejected import must store nothing.
func FuzzImport(f *testing.F) {
	f.Add(`{"content": "plain", "time": "2023-05-08T13:56:00Z"}`)
	f.Add(`{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "namespace": "x", "content": "c", "version": 1, "enrichment": {"state": "done"}}`)
	f.Add(`{"content": "a"}` + "\n" + `{"content": ""}`)
	f.Add(`{"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "namespace": "x", "content": "c", "version": 1, "enrichment": {"state": "done"}, "links": [{"source": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "target": "01ARZ3NDEKTSV4RRFFQ69G5FAW"}]}`)
	f.Add("\x00\xff{")
	mem := openMem(f, nil)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, in string) {
		before := countNotes(t, mem)
		_, err := mem.Import(ctx, strings.NewReader(in), memory.ImportOptions{Namespace: "fuzz"})
		if err != nil {
			if after := countNotes(t, mem); after != before {
				t.Fatalf("rejected import stored %d notes", after-before)
			}
		}
	})
}

func countNotes(t *testing.T, mem *memory.Memory) int {
	st, err := mem.Stats(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range st {
		n += s.Notes
	}
	return n
}
