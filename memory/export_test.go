package memory

import "github.com/amem-dev/amem/search"

// FusionDepth is how deep search reads the rankings, for the external
// tests: their oracle reads them as deep.
const FusionDepth = search.Depth

// ANNCounts returns how many approximate indexes m has built and read
// from Options.IndexDir.
func (m *Memory) ANNCounts() (builds, loads int64) {
	return m.annBuilds.Load(), m.annLoads.Load()
}

// Approximate reports whether ns is searched through an approximate
// index now, and whether a build for it is running or waits to be
// swapped in.
func (m *Memory) Approximate(ns string) (approximate, building bool) {
	s := m.spaces.loaded(ns)
	if s == nil {
		return false, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, approximate = s.idx.(annVectors)
	return approximate, s.building
}

// SetBuildHook makes every background build call f first. Set it before
// the first search.
func (m *Memory) SetBuildHook(f func(ns string)) { m.buildHook = f }

// LexLoads returns how many full-text indexes m has read from
// Options.IndexDir.
func (m *Memory) LexLoads() int64 { return m.lexLoads.Load() }

// ANNPath and LexPath are the files a namespace's approximate and
// full-text indexes are saved in.
var ANNPath, LexPath = annPath, lexPath

// VecPath is the file a namespace's float vectors are saved in.
var VecPath = vecPath

// Floats reports whether ns's approximate index keeps float vectors for
// re-ranking, and how many of them are on the heap (not in the mapped
// float file).
func (m *Memory) Floats(ns string) (keeps bool, heap int) {
	s := m.spaces.loaded(ns)
	if s == nil {
		return false, 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.idx.(annVectors)
	if !ok {
		return false, 0
	}
	return v.KeepsFloats(), v.HeapFloats()
}

// SetResaveMin lowers the floor of the heap floats that trigger writing
// the float file again (resaveEvery), so that a test reaches it.
func (m *Memory) SetResaveMin(n int) { m.resaveMin = n }
