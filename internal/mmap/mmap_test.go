package mmap

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"small", []byte("hello, mapped world")},
		{"pages", bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, 3*4096+5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if m.Len() != len(tc.data) || !bytes.Equal(m.Bytes(), tc.data) {
				t.Fatalf("mapped %d bytes, want %d equal to the file's", m.Len(), len(tc.data))
			}
			// Released pages read back the same.
			m.Release()
			if !bytes.Equal(m.Bytes(), tc.data) {
				t.Fatal("the view changed after Release")
			}
		})
	}
}

// TestSurvivesRename checks what amem relies on: a file replaced by a
// rename leaves an existing view as it was.
func TestSurvivesRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v")
	old := bytes.Repeat([]byte("old"), 5000)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "v.tmp")
	if err := os.WriteFile(tmp, bytes.Repeat([]byte("new"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Bytes(), old) {
		t.Fatal("the view changed when the file was replaced")
	}
	runtime.KeepAlive(m)
}

func TestOpenMissing(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "none")); !os.IsNotExist(err) {
		t.Fatalf("Open of a missing file: %v", err)
	}
}
