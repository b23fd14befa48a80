package kernel

// What a kernel says of itself, for monitoring.

// Counters count what a kernel built and read since it was made: the
// server's /metrics reports them (amem_index_builds_total,
// amem_index_loads_total).
type Counters struct {
	// ANNBuilds approximate indexes built; ANNLoads and LexLoads
	// approximate and full-text indexes read from Options.IndexDir.
	ANNBuilds, ANNLoads, LexLoads int64
}

// Counters returns the kernel's counters.
func (k *Kernel) Counters() Counters {
	return Counters{ANNBuilds: k.annBuilds.Load(), ANNLoads: k.annLoads.Load(), LexLoads: k.lexLoads.Load()}
}

// Status is one loaded namespace's indexes.
type Status struct {
	// Approximate: searched through an approximate index now; Building: a
	// build for it runs or waits to be swapped in.
	Approximate, Building bool
	// KeepsFloats: the approximate index keeps float vectors for
	// re-ranking; HeapFloats of them are on the heap, not in the mapped
	// float file.
	KeepsFloats bool
	HeapFloats  int
}

// Status returns the namespace's status; the zero Status when it is not
// loaded.
func (k *Kernel) Status(ns string) Status {
	s := k.spaces.loaded(ns)
	if s == nil {
		return Status{}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := Status{Building: s.building}
	if v, ok := s.idx.(annVectors); ok {
		st.Approximate, st.KeepsFloats, st.HeapFloats = true, v.KeepsFloats(), v.HeapFloats()
	}
	return st
}
