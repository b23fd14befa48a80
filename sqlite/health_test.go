package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/amem-dev/amem"
)

const testInterval = 50 * time.Millisecond

func openHealthStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "h.db"), &Options{HealthInterval: testInterval})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var noteSeq int

// addNote stores a note of about 4 KiB, enough to need a new page.
func addNote(s *Store) error {
	noteSeq++
	now := time.Now()
	return s.Update(context.Background(), func(tx amem.Tx) error {
		return tx.InsertNote(amem.Note{
			ID: fmt.Sprintf("%026d", noteSeq), Namespace: "h", Content: strings.Repeat("full disk ", 400),
			EventTime: now, IngestTime: now, UpdatedAt: now, Version: 1,
			Enrichment: amem.Enrichment{State: amem.EnrichPending},
		})
	})
}

// wantHealth fails unless Health's verdict has the reason ("" for
// healthy).
func wantHealth(t *testing.T, s *Store, reason string) {
	t.Helper()
	err := s.Health(context.Background())
	var he *amem.HealthError
	switch {
	case reason == "" && err != nil:
		t.Fatalf("Health: %v, want healthy", err)
	case reason == "":
	case !errors.As(err, &he):
		t.Fatalf("Health: %v, want %q", err, reason)
	case he.Reason != reason:
		t.Fatalf("Health: %q (%v), want %q", he.Reason, he.Err, reason)
	}
}

// TestHealthDiskFull fills the database to PRAGMA max_page_count, which
// fails writes with SQLITE_FULL as a full disk does.
func TestHealthDiskFull(t *testing.T) {
	ctx := context.Background()
	s := openHealthStore(t)
	wantHealth(t, s, "")
	var pages int
	if err := s.write.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.write.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+2)); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = addNote(s)
	}
	if !isCode(err, sqlite3.SQLITE_FULL) {
		t.Fatalf("writes to a full database: %v", err)
	}
	wantHealth(t, s, reasonFull) // at once, from the failed write
	time.Sleep(2 * testInterval)
	wantHealth(t, s, reasonFull) // from the probe: no room to grow

	if _, err := s.write.db.ExecContext(ctx, `PRAGMA max_page_count = 1000000`); err != nil {
		t.Fatal(err)
	}
	wantHealth(t, s, reasonFull) // the verdict holds for an interval
	time.Sleep(2 * testInterval)
	wantHealth(t, s, "")
	if err := addNote(s); err != nil {
		t.Fatal(err)
	}
}

// chattr makes a file immutable (+i) or not (-i): writes to it then fail
// even for root, who ignores file modes.
func chattr(t *testing.T, flag, path string) {
	t.Helper()
	if out, err := exec.Command("chattr", flag, path).CombinedOutput(); err != nil {
		t.Skipf("chattr %s: %v %s (needs root and a file system with attributes)", flag, err, out)
	}
}

func TestHealthReadOnly(t *testing.T) {
	s := openHealthStore(t)
	if err := addNote(s); err != nil {
		t.Fatal(err)
	}
	wal := s.Path() + "-wal"
	chattr(t, "+i", wal)
	t.Cleanup(func() { exec.Command("chattr", "-i", wal).Run() })

	// Found by the probe, with no write in between.
	time.Sleep(2 * testInterval)
	wantHealth(t, s, reasonReadOnly)
	chattr(t, "-i", wal)
	time.Sleep(2 * testInterval)
	wantHealth(t, s, "")

	// Found by a failed write, at once.
	chattr(t, "+i", wal)
	if err := addNote(s); err == nil {
		t.Fatal("a write to an immutable log succeeded")
	}
	wantHealth(t, s, reasonReadOnly)
	chattr(t, "-i", wal)
	time.Sleep(2 * testInterval)
	wantHealth(t, s, "")
	if err := addNote(s); err != nil {
		t.Fatal(err)
	}
}

// TestHealthDamaged overwrites a page of notes under an open store: the
// read that meets it makes the store unhealthy for good.
func TestHealthDamaged(t *testing.T) {
	ctx := context.Background()
	s := openHealthStore(t)
	for range 20 {
		if err := addNote(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.write.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	var page int64
	if err := s.write.db.QueryRowContext(ctx,
		`SELECT pageno FROM dbstat WHERE name = 'notes' AND pagetype = 'leaf' ORDER BY pageno DESC LIMIT 1`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(s.Path(), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("damaged!", 512)), (page-1)*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()

	err = s.View(ctx, func(tx amem.Tx) error {
		_, err := tx.ListNotes("h", amem.ListQuery{Limit: 100})
		return err
	})
	if !isCode(err, sqlite3.SQLITE_CORRUPT) {
		t.Fatalf("reading a damaged page: %v", err)
	}
	wantHealth(t, s, reasonDamaged)
	time.Sleep(2 * testInterval)
	wantHealth(t, s, reasonDamaged)
}

// TestHealthBusyWriter: a probe that can't get the write connection in
// time keeps the last verdict rather than failing readiness.
func TestHealthBusyWriter(t *testing.T) {
	ctx := context.Background()
	s := openHealthStore(t)
	wantHealth(t, s, "")
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- s.Update(ctx, func(amem.Tx) error { <-release; return nil })
	}()
	time.Sleep(2 * testInterval)
	start := time.Now()
	wantHealth(t, s, "")
	if d := time.Since(start); d > 3*probeWait {
		t.Errorf("Health took %v behind a busy writer", d)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestHealthClosed(t *testing.T) {
	s := openHealthStore(t)
	s.Close()
	time.Sleep(2 * testInterval)
	if err := s.Health(context.Background()); !errors.Is(err, amem.ErrClosed) {
		t.Fatalf("Health after Close: %v", err)
	}
}

// TestHealthSmallFileSystem fills a real file system: set
// AMEM_TEST_SMALL_FS to a directory on a small one the test may fill
// (as root: unshare -m sh -c 'mount -t tmpfs -o size=2m tmpfs /mnt &&
// AMEM_TEST_SMALL_FS=/mnt go test -run SmallFileSystem ./sqlite').
func TestHealthSmallFileSystem(t *testing.T) {
	dir := os.Getenv("AMEM_TEST_SMALL_FS")
	if dir == "" {
		t.Skip("AMEM_TEST_SMALL_FS is not set")
	}
	dir, err := os.MkdirTemp(dir, "health")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := Open(context.Background(), filepath.Join(dir, "h.db"), &Options{HealthInterval: testInterval})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = f.Write(make([]byte, 4096))
	}
	f.Close()
	t.Logf("filled: %v", err)
	err = nil
	for i := 0; i < 100 && err == nil; i++ {
		err = addNote(s)
	}
	if !isCode(err, sqlite3.SQLITE_FULL) {
		t.Fatalf("writes on a full file system: %v", err)
	}
	wantHealth(t, s, reasonFull)
	time.Sleep(2 * testInterval)
	wantHealth(t, s, reasonFull) // the probe's write fails too
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * testInterval)
	wantHealth(t, s, "")
	if err := addNote(s); err != nil {
		t.Fatal(err)
	}
}
