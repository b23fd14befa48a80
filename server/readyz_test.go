package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	return readyEnvLog(t, wrap, slog.New(slog.DiscardHandler))
}

func readyEnvLog(t *testing.T, wrap func(*sqlite.Store) amem.Store, log *slog.Logger) (string, *sqlite.Store) {
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
	srv := httptest.NewServer(New(mem, Options{Keys: st, Logger: log}))
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

// A store that stays down while a load balancer probes readiness and
// clients keep writing is logged once when it goes down and once when
// readiness sees it back, not once a probe or a request (the workers'
// failures are limited the same way: internal/repeatlog).
func TestStoreDownLoggedOnce(t *testing.T) {
	var buf syncBuffer
	var fs *faultyStore
	url, _ := readyEnvLog(t, func(st *sqlite.Store) amem.Store {
		fs = &faultyStore{Store: st}
		return fs
	}, slog.New(slog.NewTextHandler(&buf, nil)))
	fs.fault.Store(&amem.HealthError{Reason: "database is read-only", Err: io.ErrShortWrite})
	for range 50 {
		wantReady(t, url, 503, "database is read-only")
	}
	fs.fault.Store(nil)
	wantReady(t, url, 200, "")
	wantReady(t, url, 200, "")
	logged := buf.String()
	if n := strings.Count(logged, `level=WARN msg="store unavailable"`); n != 1 {
		t.Errorf("%d warnings for 50 failed probes, want 1:\n%s", n, logged)
	}
	if n := strings.Count(logged, "store unavailable: working again"); n != 1 {
		t.Errorf("the recovery logged %d times, want once:\n%s", n, logged)
	}
}

// syncBuffer is a bytes.Buffer the server's handlers may write from
// several goroutines while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
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
