package amem

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/amem-dev/amem/index"
)

// The kernel. The store is the durable truth; each process keeps, per
// namespace, a vector index that follows the namespace's change feed in
// the store. Writes commit to the store and nothing else; the index learns
// of them, this process's and every other process's alike, by catching up
// with the feed, which every search does before it ranks. So a search sees
// every change committed before it began, whichever process made it.

// space is one namespace's index, a follower of the namespace's feed.
type space struct {
	ns string

	// turn is held by the one catch-up running, so that two searches don't
	// both read the same changes; a channel so that waiting honours the
	// caller's context.
	turn chan struct{}

	mu  sync.RWMutex // guards idx and seq
	idx *index.Flat
	seq int64 // the feed number idx reflects; -1 until loaded

	used atomic.Int64 // last use (a counter tick), for eviction
}

// spaces holds the loaded namespaces, within a memory budget: when the
// vectors held pass it, the least recently used namespaces are dropped,
// to be reloaded from the store if used again.
type spaces struct {
	mu     sync.Mutex
	m      map[string]*space
	clock  atomic.Int64
	budget int64 // bytes of vectors
}

func newSpaces(budget int64) *spaces {
	return &spaces{m: make(map[string]*space), budget: budget}
}

// get returns the namespace's space, creating an unloaded one.
func (ss *spaces) get(ns string) *space {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.m[ns]
	if s == nil {
		s = &space{ns: ns, turn: make(chan struct{}, 1), seq: -1}
		ss.m[ns] = s
	}
	s.used.Store(ss.clock.Add(1))
	return s
}

// loaded returns the namespace's space if it has an index.
func (ss *spaces) loaded(ns string) *space {
	ss.mu.Lock()
	s := ss.m[ns]
	ss.mu.Unlock()
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.seq < 0 {
		return nil
	}
	return s
}

// evict drops the least recently used spaces, never keep, until the
// vectors held fit the budget. A dropped space still in use by a search
// stays valid for it; the next use loads a fresh one.
func (ss *spaces) evict(keep *space) {
	if ss.budget <= 0 {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	type held struct {
		s     *space
		bytes int64
	}
	var all []held
	var total int64
	for _, s := range ss.m {
		b := s.bytes()
		total += b
		all = append(all, held{s, b})
	}
	for total > ss.budget {
		var victim *held
		for i := range all {
			h := &all[i]
			if h.s == keep || h.bytes == 0 {
				continue
			}
			if victim == nil || h.s.used.Load() < victim.s.used.Load() {
				victim = h
			}
		}
		if victim == nil {
			return
		}
		delete(ss.m, victim.s.ns)
		total -= victim.bytes
		victim.bytes = 0
	}
}

// forgetIfNever drops a space whose namespace was never written, so that
// searches of made-up namespace names don't fill the map; the caller may
// still use it (it is empty and current).
func (ss *spaces) forgetIfNever(s *space) {
	s.mu.RLock()
	never := s.seq == 0 && s.idx != nil && s.idx.Len() == 0
	s.mu.RUnlock()
	if !never {
		return
	}
	ss.mu.Lock()
	if ss.m[s.ns] == s {
		delete(ss.m, s.ns)
	}
	ss.mu.Unlock()
}

// bytes is the memory the space's vectors hold.
func (s *space) bytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.idx == nil {
		return 0
	}
	return int64(s.idx.Len()) * int64(s.idx.Dim()) * 4
}

// search ranks the space's vectors against query.
func (s *space) search(query []float32, k int, allow func(string) bool) ([]index.Hit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx.Search(query, k, allow)
}

// fresh returns the namespace's space caught up with every change
// committed before the call.
func (m *Memory) fresh(ctx context.Context, ns string) (*space, error) {
	if err := m.alive(); err != nil {
		return nil, err
	}
	s := m.spaces.get(ns)
	if err := m.catchUp(ctx, s); err != nil {
		return nil, err
	}
	m.spaces.forgetIfNever(s)
	return s, nil
}

// advance catches up the namespaces this process has loaded, after a
// write: the index is warm for the next search, which would otherwise
// catch up itself. A namespace not loaded is left to load when needed, and
// a failure here is only logged: the next search catches up again.
func (m *Memory) advance(ctx context.Context, nss ...string) {
	for _, ns := range nss {
		s := m.spaces.loaded(ns)
		if s == nil {
			continue
		}
		if err := m.catchUp(ctx, s); err != nil && ctx.Err() == nil {
			m.log.Warn("index catch-up after a write", "namespace", ns, "err", err)
		}
	}
}

// catchUp brings the space's index to the feed's head: in one read
// transaction it reads the head and, if the index is behind, the changes
// since (or, for an index never loaded or behind the feed's compaction
// horizon, every vector). The index is swapped or patched only after the
// read, so searches go on meanwhile.
func (m *Memory) catchUp(ctx context.Context, s *space) error {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.turn }()

	s.mu.RLock()
	seq := s.seq
	s.mu.RUnlock()

	var (
		head    int64
		full    *index.Flat
		changes []Change
	)
	err := m.view(ctx, func(tx Tx) error {
		f, err := tx.FeedHead(s.ns)
		if err != nil {
			return err
		}
		if f.Embedder != "" {
			if err := m.checkInfo(NamespaceInfo{Name: s.ns, Embedder: f.Embedder, Dimensions: f.Dimensions}); err != nil {
				return err
			}
		}
		head = f.Head
		switch {
		case seq >= 0 && head == seq:
			return nil
		case seq < 0 || seq < f.Horizon || head < seq:
			// head < seq: the feed went back (a restored database);
			// only a reload is sure.
			full = index.NewFlat(m.opts.Embedder.Dimensions())
			st, err := tx.Stats(s.ns)
			if err != nil {
				return err
			}
			full.Grow(st.Notes)
			return tx.Embeddings(s.ns, full.Upsert)
		}
		return tx.Changes(s.ns, seq, func(c Change) error {
			c.Note = Note{Embedding: append([]float32(nil), c.Note.Embedding...)}
			changes = append(changes, c)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("namespace %s: %w", s.ns, err)
	}

	s.mu.Lock()
	switch {
	case full != nil:
		s.idx = full
	case len(changes) > 0:
		for _, c := range changes {
			if c.Deleted || len(c.Note.Embedding) == 0 {
				s.idx.Remove(c.ID)
				continue
			}
			if err := s.idx.Upsert(c.ID, c.Note.Embedding); err != nil {
				// Vectors are checked before they are stored: the store
				// holds a vector of the wrong size, so reload in full next
				// time rather than search a partial index.
				s.seq = -1
				s.mu.Unlock()
				return fmt.Errorf("namespace %s: note %s: %w", s.ns, c.ID, err)
			}
		}
	}
	s.seq = head
	s.mu.Unlock()
	if full != nil || len(changes) > 0 {
		m.spaces.evict(s)
	}
	return nil
}
