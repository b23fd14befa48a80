package memory

import (
	"github.com/amem-dev/amem/kernel"
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

// SetBuildHook makes every background build call f first. Set it before
// the first search.
func (m *Memory) SetBuildHook(f func(ns string)) { m.k.SetBuildHook(f) }

// LexLoads returns how many full-text indexes m has read from
// Options.Indexes.IndexDir.
func (m *Memory) LexLoads() int64 { return m.IndexCounters().LexLoads }

// ANNPath, VecPath and LexPath are the files a namespace's approximate
// index, float vectors and full-text index are saved in.
func ANNPath(dir, ns string) string { a, _, _ := kernel.IndexFiles(dir, ns); return a }
func VecPath(dir, ns string) string { _, v, _ := kernel.IndexFiles(dir, ns); return v }
func LexPath(dir, ns string) string { _, _, l := kernel.IndexFiles(dir, ns); return l }

// Floats reports whether ns's approximate index keeps float vectors for
// re-ranking, and how many of them are on the heap (not in the mapped
// float file).
func (m *Memory) Floats(ns string) (keeps bool, heap int) {
	st := m.k.Status(ns)
	return st.KeepsFloats, st.HeapFloats
}

// SetResaveMin lowers the floor of the heap floats that trigger writing
// the float file again (resaveEvery), so that a test reaches it.
func (m *Memory) SetResaveMin(n int) { m.k.SetResaveMin(n) }
