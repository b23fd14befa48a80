package kernel

import (
	"context"
	"fmt"

	"github.com/amem-dev/amem"

	"github.com/amem-dev/amem/index/hnsw"
	"github.com/amem-dev/amem/internal/kernelhook"
)

// A namespace of ApproximateFrom vectors or more is searched through an
// approximate index (package hnsw). Building one takes minutes at a
// million notes, so it is never built while searches wait: the namespace
// is searched exactly (index.Flat) while a goroutine builds the index from
// a copy of the vectors, catches it up with the feed and saves it; the
// next catch-up swaps it in, after replaying what changed since, and the
// Flat is dropped. A namespace that grows past the threshold switches the
// same way, and an approximate index whose removed notes pass
// hnsw.Options.CompactFraction is rebuilt from its codes the same way.

// builtIndex is an approximate index a background build finished: it
// reflects feed number seq, and saved is the feed number of the file
// written for it (-1: none).
type builtIndex struct {
	x     *hnsw.Index
	seq   int64
	saved int64
}

// maybeBuild asks for a background build if the Space's index wants one:
// a Flat of ApproximateFrom vectors or more, or an approximate index
// that needs compacting. The caller holds s.mu for writing.
func (k *Kernel) maybeBuild(s *Space) {
	if s.building || k.opts.ApproximateFrom < 0 {
		return
	}
	switch v := s.idx.(type) {
	case flatVectors:
		if v.Len() < k.opts.ApproximateFrom {
			return
		}
	case annVectors:
		if !v.NeedsCompaction() {
			return
		}
	default:
		return
	}
	s.building = k.ask(job{kind: jobBuild, s: s})
}

// build makes the Space's approximate index and leaves it in s.built.
// It holds the Space's read lock only to copy what it builds from: the
// vectors of a Flat (memcpy speed), or the codes of an approximate index.
func (k *Kernel) build(s *Space) error {
	if hook := kernelhook.Build.Load(); hook != nil {
		(*hook)(s.ns)
	}
	ctx := k.bg
	dim := k.emb.Dimensions()
	s.mu.RLock()
	seq := s.seq
	var link func(context.Context) (*hnsw.Index, error)
	switch v := s.idx.(type) {
	case flatVectors:
		ids, vecs := v.Copy()
		link = func(ctx context.Context) (*hnsw.Index, error) {
			x, err := hnsw.New(dim, k.annOptions())
			if err != nil {
				return nil, err
			}
			if k.opts.IndexDir != "" {
				// The copy's vectors become the float file, then
				// leave the heap for the mapping (saveBuilt).
				x.KeepFloats()
			}
			return x, x.UpsertBatchContext(ctx, ids, vecs)
		}
	case annVectors:
		link = v.CompactedLater()
	}
	s.mu.RUnlock()
	if link == nil {
		return fmt.Errorf("namespace %s: nothing to build from", s.ns)
	}
	k.annBuilds.Add(1)
	x, err := link(ctx)
	if err != nil {
		return err
	}
	// Catch up here what changed during the build, so that the catch-up
	// that swaps the index in replays only what changed since.
	seq, err = k.replay(ctx, s.ns, x, seq)
	if err != nil {
		return err
	}
	saved := k.saveBuilt(s.ns, seq, x)
	if saved >= 0 {
		k.saveLex(s)
	}
	s.mu.Lock()
	s.built = &builtIndex{x: x, seq: seq, saved: saved}
	s.mu.Unlock()
	return nil
}

// saveBuilt saves a built index x, which reflects feed number seq and
// which the caller owns, and maps its float vectors back from the file,
// so that they leave the heap; it returns the feed number saved, -1 if
// none. An index that cannot have its float file (no IndexDir, or a
// failed write) drops its floats and re-ranks from the store.
func (k *Kernel) saveBuilt(ns string, seq int64, x *hnsw.Index) int64 {
	if k.opts.IndexDir == "" {
		x.DropFloats()
		return -1
	}
	dim := k.emb.Dimensions()
	if err := saveANN(k.opts.IndexDir, ns, seq, k.emb.Name(), dim, x); err != nil {
		k.log.Warn("saving the approximate vector index", "namespace", ns, "err", err)
		x.DropFloats()
		return -1
	}
	if !x.KeepsFloats() {
		return seq
	}
	f, err := attachFloats(k.opts.IndexDir, ns, seq, x)
	if err != nil {
		k.log.Warn("mapping the saved float vectors; re-ranking reads the store", "namespace", ns, "err", err)
		x.DropFloats()
		return seq
	}
	x.UseFloats(f)
	return seq
}

// resaveEvery is how many float vectors an approximate index of n may
// hold on the heap, set since its float file was written, before a new
// file is written and mapped: a sixteenth of the namespace, at least
// 4,096, so that the heap side table stays within about 1/16 of what the
// floats would cost on the heap, and files are rewritten rarely.
func (k *Kernel) resaveEvery(n int) int {
	least := 4096
	if n := kernelhook.ResaveMin.Load(); n > 0 {
		least = int(n)
	}
	return max(n/16, least)
}

// maybeResave asks for the Space's approximate index and float file to
// be written again, in the background, once its heap floats pass
// resaveEvery; the caller holds s.mu for writing.
func (k *Kernel) maybeResave(s *Space) {
	v, ok := s.idx.(annVectors)
	if !ok || s.resaving || k.opts.IndexDir == "" || !v.KeepsFloats() || v.HeapFloats() < k.resaveEvery(v.Len()) {
		return
	}
	s.resaving = k.ask(job{kind: jobResave, s: s, x: v.Index})
}

// resave writes x, the Space's index, and its float file under the
// Space's read lock (searches go on), checks the float file there too,
// and only swaps the mapping in under the write lock, if x is still the
// Space's index; changes made in between stay on the heap.
func (k *Kernel) resave(s *Space, x *hnsw.Index) {
	dim := k.emb.Dimensions()
	s.mu.RLock()
	seq := s.seq
	var f *hnsw.FloatFile
	err := saveANN(k.opts.IndexDir, s.ns, seq, k.emb.Name(), dim, x)
	if err == nil {
		err = saveLex(k.opts.IndexDir, s.ns, seq, k.emb.Name(), dim, s.lex)
	}
	if err == nil {
		f, err = attachFloats(k.opts.IndexDir, s.ns, seq, x)
	}
	s.mu.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resaving = false
	if err != nil {
		k.log.Warn("saving the approximate vector index", "namespace", s.ns, "err", err)
		return
	}
	if v, ok := s.idx.(annVectors); ok && v.Index == x {
		x.UseFloats(f)
		s.saved = seq
	}
}

// replay applies to x the namespace's changes after feed number seq and
// returns the feed number x then reflects.
func (k *Kernel) replay(ctx context.Context, ns string, x *hnsw.Index, seq int64) (int64, error) {
	v := annVectors{x}
	err := k.view(ctx, func(tx amem.Tx) error {
		f, err := tx.FeedHead(ns)
		if err != nil {
			return err
		}
		if seq < f.Horizon || seq > f.Head {
			return fmt.Errorf("%w: built at feed number %d, the feed is at %d with horizon %d", errStaleIndex, seq, f.Head, f.Horizon)
		}
		if err := tx.Changes(ns, seq, func(c amem.Change) error { return applyVector(v, c) }); err != nil {
			return err
		}
		seq = f.Head
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("namespace %s: catching up a built index: %w", ns, err)
	}
	return seq, nil
}

// saveIndexes writes the approximate index of every loaded namespace that
// changed since its file was written, for the next process to read
// instead of building. Close calls it once the builds have stopped.
func (k *Kernel) saveIndexes() {
	if k.opts.IndexDir == "" {
		return
	}
	k.spaces.mu.Lock()
	all := make([]*Space, 0, len(k.spaces.m))
	for _, s := range k.spaces.m {
		all = append(all, s)
	}
	k.spaces.mu.Unlock()
	for _, s := range all {
		s.mu.RLock()
		if v, ok := s.idx.(annVectors); ok && s.seq >= 0 && s.seq != s.saved {
			if err := saveANN(k.opts.IndexDir, s.ns, s.seq, k.emb.Name(), k.emb.Dimensions(), v.Index); err != nil {
				k.log.Warn("saving the approximate vector index", "namespace", s.ns, "err", err)
			} else if err := saveLex(k.opts.IndexDir, s.ns, s.seq, k.emb.Name(), k.emb.Dimensions(), s.lex); err != nil {
				k.log.Warn("saving the full-text index", "namespace", s.ns, "err", err)
			}
		}
		s.mu.RUnlock()
	}
}

// saveLex writes the Space's full-text index beside the approximate
// index a build has just saved, so that the next process reads both
// rather than every note. It holds the Space's read lock while it
// writes (about a second at a million notes), which holds up the next
// catch-up and the searches behind it; once per build.
func (k *Kernel) saveLex(s *Space) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.seq < 0 || s.lex == nil {
		return
	}
	if err := saveLex(k.opts.IndexDir, s.ns, s.seq, k.emb.Name(), k.emb.Dimensions(), s.lex); err != nil {
		k.log.Warn("saving the full-text index", "namespace", s.ns, "err", err)
	}
}
