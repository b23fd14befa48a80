package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/amem-dev/amem/internal/kernelhook"
	"github.com/amem-dev/amem/search"
)

// FusionDepth is how deep search reads the rankings, for the external
// tests: their oracle reads them as deep.
const FusionDepth = search.Depth

// ANNCounts returns how many approximate indexes m has built and read
// from Options.Indexes.IndexDir.
func (m *Memory) ANNCounts() (builds, loads int64) {
	c := m.IndexCounters()
	return c.ANNBuilds, c.ANNLoads
}

// Approximate reports whether ns is searched through an approximate
// index now, and whether a build for it is running or waits to be
// swapped in.
func (m *Memory) Approximate(ns string) (approximate, building bool) {
	st := m.k.Status(ns)
	return st.Approximate, st.Building
}

// SetBuildHook makes every kernel's background builds call f first,
// until remove or the end of the test. The hook is the process's: the
// test must not run in parallel.
func SetBuildHook(t testing.TB, f func(ns string)) (remove func()) {
	kernelhook.Build.Store(&f)
	remove = func() { kernelhook.Build.Store(nil) }
	t.Cleanup(remove)
	return remove
}

// LexLoads returns how many full-text indexes m has read from
// Options.Indexes.IndexDir.
func (m *Memory) LexLoads() int64 { return m.IndexCounters().LexLoads }

// ANNPath, VecPath and LexPath are the files a namespace's approximate
// index, float vectors and full-text index are saved in: stated here
// apart from the kernel's own naming, as they are part of the format on
// disk (a process that named them otherwise would not find the files of
// the one before), so the tests that read them fail if it changes.
func ANNPath(dir, ns string) string { return savedPath(dir, ns, ".hnsw") }
func VecPath(dir, ns string) string { return savedPath(dir, ns, ".vec") }
func LexPath(dir, ns string) string { return savedPath(dir, ns, ".lex") }

// savedPath names a namespace's file by the hex of its name's SHA-256's
// first 12 bytes.
func savedPath(dir, ns, ext string) string {
	sum := sha256.Sum256([]byte(ns))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+ext)
}

// Floats reports whether ns's approximate index keeps float vectors for
// re-ranking, and how many of them are on the heap (not in the mapped
// float file).
func (m *Memory) Floats(ns string) (keeps bool, heap int) {
	st := m.k.Status(ns)
	return st.KeepsFloats, st.HeapFloats
}

// SetResaveMin lowers every kernel's floor of the heap floats that
// trigger writing the float file again (resaveEvery), so that a test
// reaches it, until the test ends; not in parallel.
func SetResaveMin(t testing.TB, n int) {
	kernelhook.ResaveMin.Store(int64(n))
	t.Cleanup(func() { kernelhook.ResaveMin.Store(0) })
}
