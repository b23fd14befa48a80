package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

var quiet = slog.New(slog.DiscardHandler)

// openMem opens a Memory on the SQLite file at path, saving indexes in
// dir and searching namespaces of from notes or more approximately.
func openMem(t testing.TB, path, dir string, from int) *memory.Memory {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Logger: quiet,
		Indexes: kernel.Options{ApproximateFrom: from, IndexDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

func search(ctx context.Context, mem *memory.Memory, ns string) error {
	_, err := mem.Search(ctx, amem.SearchRequest{Namespace: ns, Query: "note 7", K: 5, LinksPerHit: -1})
	return err
}

// savedNamespaces writes notes notes to each namespace, searched
// approximately from notes/2, and waits for their approximate and
// full-text indexes to be saved under dir.
func savedNamespaces(t testing.TB, path, dir string, notes int, nss ...string) {
	t.Helper()
	mem := openMem(t, path, dir, notes/2)
	defer mem.Close()
	ctx := context.Background()
	for _, ns := range nss {
		for lo := 0; lo < notes; lo += 500 {
			var reqs []amem.AddRequest
			for i := lo; i < min(lo+500, notes); i++ {
				reqs = append(reqs, amem.AddRequest{Namespace: ns, Content: fmt.Sprintf("note %s %d", ns, i)})
			}
			if _, err := mem.AddBatch(ctx, reqs); err != nil {
				t.Fatal(err)
			}
		}
	}
	deadline := time.Now().Add(time.Minute)
	for _, ns := range nss {
		_, _, lex := kernel.IndexFiles(dir, ns)
		for {
			if err := search(ctx, mem, ns); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(lex); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no saved index after a minute", ns)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// A search that loads a namespace from its saved files does not read
// them on its own goroutine: a file reader the kernel started does, and
// the search waits for it. First loads of two namespaces read their
// files side by side, and a search that gives up waiting returns.
func TestSearchReadsNoFile(t *testing.T) {
	path, dir := filepath.Join(t.TempDir(), "r.db"), t.TempDir()
	savedNamespaces(t, path, dir, 120, "a", "b")

	var mu sync.Mutex
	stacks := map[string]string{}
	holdA := make(chan struct{})
	defer kernel.SetReadHook(func(ns string) {
		buf := make([]byte, 64<<10)
		buf = buf[:runtime.Stack(buf, false)]
		mu.Lock()
		stacks[ns] = string(buf)
		mu.Unlock()
		if ns == "a" {
			<-holdA
		}
	})()

	mem := openMem(t, path, dir, 60)
	defer mem.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	held := make(chan error, 1)
	go func() { held <- search(ctx, mem, "a") }()
	select {
	case err := <-held:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("search waiting for a held reader: %v, want its context's deadline", err)
		}
	case <-time.After(10 * time.Second):
		close(holdA)
		t.Fatal("a search held while a's files are read does not honour its context")
	}
	// Another namespace loads while a's reader is held.
	if err := search(context.Background(), mem, "b"); err != nil {
		t.Fatal(err)
	}
	close(holdA)
	if err := search(context.Background(), mem, "a"); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, ns := range []string{"a", "b"} {
		st, ok := stacks[ns]
		switch {
		case !ok:
			t.Errorf("%s: its saved files were not read", ns)
		case !strings.Contains(st, "kernel.(*Kernel).readFiles"):
			t.Errorf("%s: files read on a goroutine other than a file reader's:\n%s", ns, st)
		case strings.Contains(st, "Fresh") || strings.Contains(st, "memory.(*Memory)"):
			t.Errorf("%s: files read on the search's goroutine:\n%s", ns, st)
		}
	}
}

// After Close, asking for a namespace's files fails with ErrClosed and
// no file is read, and neither does a search.
func TestClosedKernelReadsNoFile(t *testing.T) {
	path, dir := filepath.Join(t.TempDir(), "c.db"), t.TempDir()
	savedNamespaces(t, path, dir, 120, "a")
	var n int
	var mu sync.Mutex
	defer kernel.SetReadHook(func(string) { mu.Lock(); n++; mu.Unlock() })()

	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	emb := lexical.New(nil)
	k := kernel.New(st, emb, quiet, kernel.Options{ApproximateFrom: 60, IndexDir: dir})
	k.Close()
	f := amem.Feed{Head: 1 << 40, Embedder: emb.Name(), Dimensions: emb.Dimensions()}
	for range 50 {
		if err := k.AskSavedFiles(ctx, "a", f); !errors.Is(err, amem.ErrClosed) {
			t.Fatalf("asking for files after Close: %v, want ErrClosed", err)
		}
	}
	if _, err := k.Fresh(ctx, "a"); !errors.Is(err, amem.ErrClosed) {
		t.Fatalf("Fresh after Close: %v, want ErrClosed", err)
	}

	mem := openMem(t, path, dir, 60)
	mem.Close()
	if err := search(ctx, mem, "a"); !errors.Is(err, amem.ErrClosed) {
		t.Fatalf("search after Close: %v, want ErrClosed", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 0 {
		t.Fatalf("%d namespaces' files read after Close", n)
	}
}
