package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/amem-dev/amem/memory"
)

// TestImportDryRunWritesNothing: a dry run counts what the import would do
// (the same counts the real import then reports), reports bad lines as
// the import does, and never opens a write.
func TestImportDryRunWritesNothing(t *testing.T) {
	ctx := context.Background()
	mem, fs := openFaulty(t, 0)
	in := plainLines(30) + plainLines(5) // the last five repeat earlier lines
	dry, err := mem.Import(ctx, strings.NewReader(in), memory.ImportOptions{Namespace: "p", DryRun: true})
	if err != nil || dry.Added != 30 || dry.Duplicates != 5 {
		t.Fatalf("dry run: %+v %v; want 30 added, 5 duplicates", dry, err)
	}
	if w := fs.writes.Load(); w != 0 {
		t.Fatalf("a dry run opened %d write transactions", w)
	}
	if notes, _ := countAll(t, mem); notes != 0 {
		t.Fatalf("a dry run stored %d notes", notes)
	}
	real, err := mem.Import(ctx, strings.NewReader(in), memory.ImportOptions{Namespace: "p"})
	if err != nil || real != dry {
		t.Fatalf("import after the dry run: %+v %v; the dry run said %+v", real, err, dry)
	}
	var buf strings.Builder
	if _, err := mem.Export(ctx, &buf, "p"); err != nil {
		t.Fatal(err)
	}
	again, err := mem.Import(ctx, strings.NewReader(buf.String()+in), memory.ImportOptions{Namespace: "p", DryRun: true})
	if err != nil || again.Unchanged != 30 || again.Restored != 0 || again.Added != 0 || again.Duplicates != 35 {
		t.Fatalf("dry run of what is stored: %+v %v", again, err)
	}
	_, err = mem.Import(ctx, strings.NewReader(`{"content": "ok"}`+"\n"+`{"content": ""}`), memory.ImportOptions{DryRun: true})
	var ie *memory.ImportError
	if !errors.As(err, &ie) || ie.Total != 1 || ie.Lines[0].Line != 2 {
		t.Fatalf("dry run of a bad line: %v", err)
	}
}
