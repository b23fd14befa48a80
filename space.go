package amem

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/amem-dev/amem/index"
	"github.com/amem-dev/amem/lexindex"
)

// The kernel. The store is the durable truth; each process keeps, per
// namespace, a vector index and a full-text index that follow the
// namespace's change feed in the store. Writes commit to the store and
// nothing else; the indexes learn of them, this process's and every other
// process's alike, by catching up with the feed, which every search does
// before it ranks. So a search sees every change committed before it
// began, whichever process made it.

// space is one namespace's indexes, a follower of the namespace's feed.
// The full-text index is the namespace's own, statistics included, so a
// namespace's ranking and its cost never depend on another's.
type space struct {
	ns string

	// turn is held by the one catch-up running, so that two searches don't
	// both read the same changes; a channel so that waiting honours the
	// caller's context.
	turn chan struct{}

	mu  sync.RWMutex // guards idx, lex and seq
	idx *index.Flat
	lex *lexindex.Index
	seq int64 // the feed number the indexes reflect; -1 until loaded

	used atomic.Int64 // last use (a counter tick), for eviction
}

// spaces holds the loaded namespaces, within a memory budget: when the
// vectors held pass it, the least recently used namespaces are dropped,
// to be reloaded from the store if used again.
type spaces struct {
	mu     sync.Mutex
	m      map[string]*space
	clock  atomic.Int64
	budget int64 // bytes of indexes
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

// bytes is about the memory the space's indexes hold.
func (s *space) bytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.idx == nil {
		return 0
	}
	return int64(s.idx.Len())*int64(s.idx.Dim())*4 + s.lex.Bytes()
}

// search ranks the space's vectors against query.
func (s *space) search(query []float32, k int, allow func(string) bool) ([]index.Hit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx.Search(query, k, allow)
}

// searchText ranks the space's notes by BM25 against query.
func (s *space) searchText(query string, k int, allow func(string) bool) []lexindex.Hit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lex.Search(query, k, allow)
}

// textOf is what the full-text index holds of a note.
func textOf(n Note) lexindex.Fields {
	return lexindex.Fields{Content: n.Content, Context: n.Context, Keywords: n.Keywords, Tags: n.Tags}
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

// loadAll reads every note of the namespace into new indexes. The text is
// indexed on another goroutine, in batches, while the store is read and
// the vectors copied: tokenising was a third of a load's time.
func loadAll(tx Tx, ns string, dim, notes int) (*index.Flat, *lexindex.Index, error) {
	flat := index.NewFlat(dim)
	flat.Grow(notes)
	lex := lexindex.New()
	type doc struct {
		id string
		f  lexindex.Fields
	}
	const batch = 128
	texts := make(chan []doc, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range texts {
			for _, d := range b {
				lex.Upsert(d.id, d.f)
			}
		}
	}()
	b := make([]doc, 0, batch)
	pace := newLoadPacer(notes, dim)
	err := tx.Changes(ns, 0, func(c Change) error {
		pace.row()
		if c.Deleted {
			return nil
		}
		b = append(b, doc{c.ID, textOf(c.Note)})
		if len(b) == batch {
			texts <- b
			b = make([]doc, 0, batch)
		}
		if len(c.Note.Embedding) == 0 {
			return nil
		}
		return flat.Upsert(c.ID, c.Note.Embedding)
	})
	texts <- b
	close(texts)
	<-done
	return flat, lex, err
}

// catchUp brings the space's indexes to the feed's head: in one read
// transaction it reads the head and, if the indexes are behind, the
// changes since (or, for indexes never loaded or behind the feed's
// compaction horizon, every note). The indexes are swapped or patched only
// after the read, so searches go on meanwhile.
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
		fullLex *lexindex.Index
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
			st, err := tx.Stats(s.ns)
			if err != nil {
				return err
			}
			full, fullLex, err = loadAll(tx, s.ns, m.opts.Embedder.Dimensions(), st.Notes)
			return err
		}
		return tx.Changes(s.ns, seq, func(c Change) error {
			n := c.Note
			c.Note = Note{Content: n.Content, Context: n.Context, Keywords: n.Keywords, Tags: n.Tags,
				Embedding: append([]float32(nil), n.Embedding...)}
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
		s.idx, s.lex = full, fullLex
	case len(changes) > 0:
		for _, c := range changes {
			if c.Deleted {
				s.idx.Remove(c.ID)
				s.lex.Remove(c.ID)
				continue
			}
			s.lex.Upsert(c.ID, textOf(c.Note))
			if len(c.Note.Embedding) == 0 {
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
