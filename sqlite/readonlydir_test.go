package sqlite

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// In a directory that takes no new files (a read-only file system; here
// an immutable directory, chattr +i, which binds root too) Check reads a
// healthy database as healthy, and Open says what is wrong in words, not
// "journal mode: unable to open database file (14)". Where chattr is not
// available the directory's state is simulated, which tests the same
// decision but not the kernel's answer.
func TestReadOnlyDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx amem.Tx) error {
		return tx.PutNamespace(amem.NamespaceInfo{Name: "ns", Embedder: "e", Dimensions: 1, CreatedAt: time.Now()})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // checkpoints and removes -wal and -shm
		t.Fatal(err)
	}
	real := false
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err == nil {
		real = true
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", dir).Run() })
		if !dirUnwritable(dir) {
			t.Fatal("an immutable directory counts as writable")
		}
	} else {
		t.Logf("chattr +i unavailable (%v: %s); simulating the read-only directory", err, strings.TrimSpace(string(out)))
		was := dirUnwritable
		dirUnwritable = func(d string) bool { return d == dir || was(d) }
		t.Cleanup(func() { dirUnwritable = was })
	}
	r, err := Check(ctx, path)
	if err != nil || !r.OK() {
		t.Fatalf("check of a healthy database in a read-only directory: %+v, %v", r, err)
	}
	if !real {
		return // SQLite opens the writable directory the simulation stands for
	}
	if s, err := Open(ctx, path, nil); err == nil || !strings.Contains(err.Error(), "is not writable") {
		if err == nil {
			s.Close()
		}
		t.Errorf("Open in a read-only directory: %v; want it to say the directory is not writable", err)
	}
}
