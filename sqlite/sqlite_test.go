package sqlite_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // raw access to the file in tests

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/storetest"
)

// mustOpen opens a store at path, closed when the test ends.
func mustOpen(t testing.TB, path string, opts *sqlite.Options) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func tempPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "amem.db")
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) amem.Store {
		return mustOpen(t, tempPath(t), nil)
	})
}

// ids makes ULID-shaped IDs in increasing order.
func ids(n int) []string {
	out := make([]string, n)
	prefix := fmt.Sprintf("%010d", time.Now().UnixNano()%1e10)
	for i := range out {
		out[i] = fmt.Sprintf("%s%016d", prefix, i)
	}
	return out
}

func testNote(ns, id, content string) amem.Note {
	now := time.Now().UTC()
	return amem.Note{
		ID: id, Namespace: ns, Content: content,
		EventTime: now, IngestTime: now, UpdatedAt: now,
		Keywords: []string{"k"}, Tags: []string{"t"}, Context: "c",
		Metadata:   map[string]string{"m": "v"},
		Embedding:  []float32{1, 2, 3},
		Links:      []amem.Link{},
		Version:    1,
		Enrichment: amem.Enrichment{State: amem.EnrichPending, DueAt: now},
	}
}

func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t)
	s, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := ids(2)
	a, b := testNote("ns", id[0], "first note"), testNote("ns", id[1], "second note")
	info := amem.NamespaceInfo{Name: "ns", Embedder: "e", Dimensions: 3, CreatedAt: time.Unix(1, 2).UTC()}
	link := amem.Link{Source: a.ID, Target: b.ID, Reason: "r", Strength: 0.5, CreatedAt: time.Unix(3, 4).UTC()}
	ver := amem.Version{NoteID: a.ID, Namespace: "ns", Version: 1, Actor: amem.ActorUser,
		Changes: []amem.FieldChange{}, Snapshot: amem.Snapshot{Content: "first note", Keywords: []string{}, Tags: []string{}},
		CreatedAt: time.Unix(5, 6).UTC()}
	err = s.Update(ctx, func(tx amem.Tx) error {
		return errors.Join(tx.PutNamespace(info), tx.InsertNote(a), tx.InsertNote(b), tx.PutLink("ns", link),
			tx.AddVersion(ver), tx.(amem.UsageKeeper).RecordUsage(amem.UsageRecord{Namespace: "ns", Operation: "embed", Usage: amem.Usage{PromptTokens: 9}}))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the log survives Close: %v", err)
	}

	s = mustOpen(t, path, nil)
	err = s.View(ctx, func(tx amem.Tx) error {
		gotInfo, err := tx.Namespace("ns")
		if err != nil {
			return err
		}
		if gotInfo != info {
			t.Errorf("namespace = %+v, want %+v", gotInfo, info)
		}
		got, err := tx.Note("ns", a.ID)
		if err != nil {
			return err
		}
		want := a
		want.Links = []amem.Link{link}
		if !samePrint(t, got, want) {
			t.Errorf("note after reopen:\n got %+v\nwant %+v", got, want)
		}
		vs, err := tx.Versions("ns", a.ID)
		if err != nil {
			return err
		}
		if len(vs) != 1 || !samePrint(t, vs[0], ver) {
			t.Errorf("versions after reopen = %+v", vs)
		}
		u, err := tx.(amem.UsageKeeper).UsageTotals("ns")
		if err != nil {
			return err
		}
		if len(u) != 1 || u[0].PromptTokens != 9 {
			t.Errorf("usage after reopen = %+v", u)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// samePrint compares values by their %+v text, which shows times to the
// nanosecond with their zone.
func samePrint(t *testing.T, a, b any) bool {
	t.Helper()
	return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b)
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t)
	for i := 0; i < 3; i++ { // idempotent
		s, err := sqlite.Open(ctx, path, nil)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	db := rawDB(t, path)
	var n, max int
	if err := db.QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != max || n < 1 {
		t.Errorf("schema_migrations holds %d rows up to version %d", n, max)
	}

	// A database from the future is refused.
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, max+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := sqlite.Open(ctx, path, nil)
	if !errors.Is(err, sqlite.ErrSchemaTooNew) {
		t.Errorf("open of a newer schema: err = %v, want ErrSchemaTooNew", err)
	}
}

func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenPaths(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{
		"nested/dirs/amem.db",
		"odd ?name#with%25 & ü=chars.db",
	} {
		path := filepath.Join(dir, name)
		s := mustOpen(t, path, &sqlite.Options{BusyTimeout: time.Second, ReadConns: 2})
		if s.Path() != path {
			t.Errorf("Path() = %q, want %q", s.Path(), path)
		}
		if err := s.Update(ctx, func(tx amem.Tx) error { return tx.InsertNote(testNote("ns", ids(1)[0], "x")) }); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("database not at %s: %v", path, err)
		}
	}
	for _, bad := range []string{"", ":memory:", "file:x.db"} {
		if _, err := sqlite.Open(ctx, bad, nil); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("Open(%q): err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestPragmas(t *testing.T) {
	path := tempPath(t)
	mustOpen(t, path, nil)
	db := rawDB(t, path)
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestInvalidInput(t *testing.T) {
	s := mustOpen(t, tempPath(t), nil)
	id := ids(3)
	a, b := testNote("ns", id[0], "a"), testNote("ns", id[1], "b")
	if err := s.Update(context.Background(), func(tx amem.Tx) error {
		return errors.Join(tx.InsertNote(a), tx.InsertNote(b))
	}); err != nil {
		t.Fatal(err)
	}
	far := testNote("ns", id[2], "far")
	far.EventTime = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	noID := testNote("ns", "", "x")
	noNS := testNote("", id[2], "x")
	for _, tc := range []struct {
		name string
		fn   func(tx amem.Tx) error
	}{
		{"time out of range", func(tx amem.Tx) error { return tx.InsertNote(far) }},
		{"no ID", func(tx amem.Tx) error { return tx.InsertNote(noID) }},
		{"no namespace", func(tx amem.Tx) error { return tx.InsertNote(noNS) }},
		{"self link", func(tx amem.Tx) error { return tx.PutLink("ns", amem.Link{Source: a.ID, Target: a.ID}) }},
		{"NaN strength", func(tx amem.Tx) error {
			return tx.PutLink("ns", amem.Link{Source: a.ID, Target: b.ID, Strength: math.NaN()})
		}},
		{"negative list limit", func(tx amem.Tx) error { _, err := tx.ListNotes("ns", amem.ListQuery{Limit: -1}); return err }},
		{"empty namespace name", func(tx amem.Tx) error { return tx.PutNamespace(amem.NamespaceInfo{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Update(context.Background(), tc.fn); !errors.Is(err, amem.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestListLimits(t *testing.T) {
	s := mustOpen(t, tempPath(t), nil)
	ctx := context.Background()
	id := ids(sqlite.DefaultListLimit + 5)
	if err := s.Update(ctx, func(tx amem.Tx) error {
		for _, id := range id {
			if err := tx.InsertNote(testNote("ns", id, "x")); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ limit, want int }{
		{0, sqlite.DefaultListLimit}, {3, 3}, {sqlite.MaxListLimit + 1, len(id)},
	} {
		_ = s.View(ctx, func(tx amem.Tx) error {
			got, err := tx.ListNotes("ns", amem.ListQuery{Limit: tc.limit})
			if err != nil || len(got) != tc.want {
				t.Errorf("limit %d: %d notes, %v; want %d", tc.limit, len(got), err, tc.want)
			}
			return nil
		})
	}
}

// TestTwoStores opens the same file twice, as two processes would, and
// writes through both at once: BEGIN IMMEDIATE and the busy timeout must
// serialize them without SQLITE_BUSY.
func TestTwoStores(t *testing.T) {
	path := tempPath(t)
	stores := []*sqlite.Store{mustOpen(t, path, nil), mustOpen(t, path, nil)}
	ctx := context.Background()
	id := ids(100)
	var wg sync.WaitGroup
	for i, id := range id {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[i%2]
			err := s.Update(ctx, func(tx amem.Tx) error {
				if _, err := tx.Stats("ns"); err != nil {
					return err
				}
				return tx.InsertNote(testNote("ns", id, "x"))
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	_ = stores[1].View(ctx, func(tx amem.Tx) error {
		st, err := tx.Stats("ns")
		if err != nil || st.Notes != len(id) {
			t.Errorf("stats = %+v, %v; want %d notes", st, err, len(id))
		}
		return nil
	})
}

// crashEnv names the database the crash helper writes to.
const crashEnv = "AMEM_SQLITE_CRASH_DB"

// TestCrashHelper is the child process of TestCrash: it inserts notes one
// transaction each, printing each ID once Update has returned, until it is
// killed.
func TestCrashHelper(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("run by TestCrash")
	}
	s, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		id := fmt.Sprintf("CRASH%021d", i)
		n := testNote("crash", id, strings.Repeat("durable ", 50))
		if err := s.Update(context.Background(), func(tx amem.Tx) error { return tx.InsertNote(n) }); err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Fprintln(out, id)
		out.Flush() // acknowledged: the parent may count on it
	}
}

// TestCrash kills a writer mid-stream and checks that every write it
// acknowledged is in the database after recovery.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	path := tempPath(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	sc := bufio.NewScanner(stdout)
	deadline := time.Now().Add(30 * time.Second)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "error:") {
			t.Fatalf("child: %s", line)
		}
		if !strings.HasPrefix(line, "CRASH") {
			continue
		}
		acked = append(acked, line)
		if len(acked) == 300 || time.Now().After(deadline) {
			break
		}
	}
	// Kill it mid-transaction, most likely, rather than between two.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() { // IDs printed before the kill landed were acknowledged too
		if line := sc.Text(); strings.HasPrefix(line, "CRASH") {
			acked = append(acked, line)
		}
	}
	_ = cmd.Wait()
	if len(acked) < 10 {
		t.Fatalf("the child acknowledged only %d writes", len(acked))
	}

	s := mustOpen(t, path, nil)
	var stored []string
	if err := s.View(context.Background(), func(tx amem.Tx) error {
		for after := ""; ; {
			page, err := tx.ListNotes("crash", amem.ListQuery{After: after, Limit: 1000})
			if err != nil || len(page) == 0 {
				return err
			}
			for _, n := range page {
				stored = append(stored, n.ID)
			}
			after = page[len(page)-1].ID
		}
	}); err != nil {
		t.Fatal(err)
	}
	for _, id := range acked {
		if _, ok := slices.BinarySearch(stored, id); !ok {
			t.Errorf("acknowledged note %s is lost", id)
		}
	}
	t.Logf("%d acknowledged, %d stored", len(acked), len(stored))
}
