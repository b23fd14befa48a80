package kernel_test

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkFirstSearch times a namespace's first search in a new
// process (a Memory opened afresh), which loads its 3,000 notes'
// indexes from the files saved under IndexDir: the files read (by a
// file reader), the store's catch-up and check, and the search.
func BenchmarkFirstSearch(b *testing.B) {
	const notes = 3000
	ctx := context.Background()
	path, dir := filepath.Join(b.TempDir(), "f.db"), b.TempDir()
	savedNamespaces(b, path, dir, notes, "ns")
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		mem := openMem(b, path, dir, notes/2)
		b.StartTimer()
		if err := search(ctx, mem, "ns"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		mem.Close()
		b.StartTimer()
	}
}
