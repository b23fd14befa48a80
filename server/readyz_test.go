package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/sqlite"
)

// faultyStore is a sqlite store whose health verdict a test sets.
type faultyStore struct {
	*sqlite.Store
	fault atomic.Pointer[amem.HealthError]
}

func (s *faultyStore) Health(ctx context.Context) error {
	if f := s.fault.Load(); f != nil {
		return f
	}
	return s.Store.Health(ctx)
}

const healthInterval = 50 * time.Millisecond

// readyEnv serves the API over store (wrapped by wrap if non-nil) and
// returns its URL.
func readyEnv(t *testing.T, wrap func(*sqlite.Store) amem.Store) (string, *sqlite.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"), &sqlite.Options{HealthInterval: healthInterval})
	if err != nil {
		t.Fatal(err)
	}
	var store amem.Store = st
	if wrap != nil {
		store = wrap(st)
	}
	mem, err := memory.Open(ctx, store, &memory.Options{Embedder: lexical.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(mem, Options{Keys: st, Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(func() {
		srv.Close()
		mem.Close()
	})
	return srv.URL, st
}

// readyz returns /readyz's status and, for a problem, its detail.
func readyz(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var p Problem
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("readyz %d: %s", resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, p.Detail
}

func wantReady(t *testing.T, url string, status int, detail string) {
	t.Helper()
	if got, d := readyz(t, url); got != status || d != detail {
		t.Fatalf("readyz: %d %q, want %d %q", got, d, status, detail)
	}
}

func TestReadyzStoreFault(t *testing.T) {
	var fs *faultyStore
	url, _ := readyEnv(t, func(st *sqlite.Store) amem.Store {
		fs = &faultyStore{Store: st}
		return fs
	})
	wantReady(t, url, 200, "")
	fs.fault.Store(&amem.HealthError{Reason: "disk full", Err: io.ErrShortWrite})
	wantReady(t, url, 503, "disk full") // the reason, never the cause
	fs.fault.Store(nil)
	wantReady(t, url, 200, "")
}

// TestReadyzUnwritable makes the database's log immutable (chattr +i,
// which binds root too): writes fail, and so does readiness, until it is
// writable again.
func TestReadyzUnwritable(t *testing.T) {
	url, st := readyEnv(t, nil)
	wantReady(t, url, 200, "")
	wal := st.Path() + "-wal"
	if out, err := exec.Command("chattr", "+i", wal).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s (needs root and a file system with attributes)", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", wal).Run() })
	time.Sleep(2 * healthInterval)
	wantReady(t, url, 503, "database is read-only")
	if out, err := exec.Command("chattr", "-i", wal).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i: %v %s", err, out)
	}
	time.Sleep(2 * healthInterval)
	wantReady(t, url, 200, "")
}
