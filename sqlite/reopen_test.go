package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// A write connection stuck read-only (here made so with query_only, as
// SQLite makes a connection to a file it may not write) is replaced once
// a write fails: the store takes writes again and says it is healthy,
// without a restart; a failed reopen waits a health interval before the
// next try.
func TestWriteConnectionReopened(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"), &Options{HealthInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put := func(name string) error {
		return s.Update(ctx, func(tx amem.Tx) error {
			return tx.PutNamespace(amem.NamespaceInfo{Name: name, Embedder: "e", Dimensions: 1, CreatedAt: time.Now()})
		})
	}
	if err := put("before"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.write.db.Exec("PRAGMA query_only = 1"); err != nil {
		t.Fatal(err)
	}
	err = put("stuck")
	if f := s.fault(err); f == nil || f.Reason != reasonReadOnly {
		t.Fatalf("a write on the read-only connection: %v, want read-only", err)
	}
	// That failure reopened the connection.
	if err := put("after"); err != nil {
		t.Fatalf("after the reopen: %v", err)
	}
	if err := s.Health(ctx); err != nil {
		t.Fatalf("health after the reopen: %v", err)
	}
	var n int
	err = s.View(ctx, func(tx amem.Tx) error {
		infos, err := tx.Namespaces()
		n = len(infos)
		return err
	})
	if err != nil || n != 2 {
		t.Fatalf("namespaces %d, %v; want before and after", n, err)
	}
	// Rate limit: a reopen right after another is not tried.
	if s.reopenWrite(ctx) {
		t.Fatal("a second reopen within the interval ran")
	}
	s.reopened.Store(time.Now().Add(-2 * time.Hour).UnixNano()) // an interval later
	if !s.reopenWrite(ctx) {
		t.Fatal("a reopen after the interval did not run")
	}
}
