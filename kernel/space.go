package kernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/amem-dev/amem"

	"github.com/amem-dev/amem/index"
	"github.com/amem-dev/amem/index/hnsw"
	"github.com/amem-dev/amem/lexindex"
)

// The kernel. The store is the durable truth; each process keeps, per
// namespace, a vector index and a full-text index that follow the
// namespace's change feed in the store. Writes commit to the store and
// nothing else; the indexes learn of them, this process's and every other
// process's alike, by catching up with the feed, which every search does
// before it ranks. So a search sees every change committed before it
// began, whichever process made it.

// Space is one namespace's indexes, a follower of the namespace's feed.
// The full-text index is the namespace's own, statistics included, so a
// namespace's ranking and its cost never depend on another's.
type Space struct {
	ns string

	// turn is held by the one catch-up running, so that two searches don't
	// both read the same changes; a channel so that waiting honours the
	// caller's context.
	turn chan struct{}

	mu  sync.RWMutex // guards every field below but used
	idx vectors
	lex *lexindex.Index // with the ranker's marks (notetext.go, conversation.Fields)
	seq int64           // the feed number the indexes reflect; -1 until loaded

	// building is set while an approximate index is built in the
	// background (build.go), until the next catch-up swaps the result,
	// left in built, in for idx.
	building bool
	built    *builtIndex
	// resaving is set while the approximate index and its float file are
	// written again (build.go's maybeResave).
	resaving bool
	// saved is the feed number of the index file this process last wrote
	// or read for the namespace (-1: none), so that Close writes only an
	// index that changed since.
	saved int64

	used atomic.Int64 // last use (a counter tick), for eviction
}

// spaces holds the loaded namespaces, within a memory budget: when the
// vectors held pass it, the least recently used namespaces are dropped,
// to be reloaded from the store if used again.
type spaces struct {
	mu     sync.Mutex
	m      map[string]*Space
	clock  atomic.Int64
	budget int64 // bytes of indexes
}

func newSpaces(budget int64) *spaces {
	return &spaces{m: make(map[string]*Space), budget: budget}
}

// get returns the namespace's Space, creating an unloaded one.
func (ss *spaces) get(ns string) *Space {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.m[ns]
	if s == nil {
		s = &Space{ns: ns, turn: make(chan struct{}, 1), seq: -1, saved: -1}
		ss.m[ns] = s
	}
	s.used.Store(ss.clock.Add(1))
	return s
}

// loaded returns the namespace's Space if it has an index.
func (ss *spaces) loaded(ns string) *Space {
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
// vectors held fit the budget. A dropped Space still in use by a search
// stays valid for it; the next use loads a fresh one.
func (ss *spaces) evict(keep *Space) {
	if ss.budget <= 0 {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	type held struct {
		s     *Space
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

// forgetIfNever drops a Space whose namespace was never written, so that
// searches of made-up namespace names don't fill the map; the caller may
// still use it (it is empty and current).
func (ss *spaces) forgetIfNever(s *Space) {
	s.mu.RLock()
	never := s.seq == 0 && s.idx != nil && s.idx.len() == 0
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

// bytes is about the memory the Space's indexes hold.
func (s *Space) bytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.idx == nil {
		return 0
	}
	return s.idx.bytes() + s.lex.Bytes()
}

// selective is the share of a namespace below which a filter's matches
// are ranked by a scan of just them rather than a search of the whole
// index that skips the rest: package hnsw measured the crossing near 1
// in 20 (see its doc).
const selective = 20

// search ranks the Space's vectors against query: among allow's notes
// if allow is not nil, never except (a note's own neighbours leave it
// out). rerank supplies float vectors to an approximate index.
func (s *Space) search(query []float32, k int, allow map[string]bool, except string, rerank hnsw.Rerank) ([]index.Hit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch {
	case allow == nil && except != "":
		// One more, unfiltered, then drop it: a filter would cost the
		// approximate index a bounded wander for nothing.
		hits, err := s.idx.search(query, k+1, nil, rerank)
		hits = slices.DeleteFunc(hits, func(h index.Hit) bool { return h.ID == except })
		return hits[:min(k, len(hits))], err
	case allow == nil:
		return s.idx.search(query, k, nil, rerank)
	case len(allow) < s.idx.len()/selective:
		ids := make([]string, 0, len(allow))
		for id := range allow {
			if id != except {
				ids = append(ids, id)
			}
		}
		return s.idx.searchAmong(query, k, ids, rerank)
	}
	return s.idx.search(query, k, func(id string) bool { return allow[id] && id != except }, rerank)
}

// searchText ranks the Space's notes by BM25 against query.
func (s *Space) searchText(query string, k int, allow func(string) bool) []lexindex.Hit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lex.Search(query, k, allow)
}

// searchLike ranks the Space's notes by BM25 against the terms the
// notes ids hold where w says (lexindex.TermsOf), in their order.
func (s *Space) searchLike(ids []string, w lexindex.Where, k int, allow func(string) bool) []lexindex.Hit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var terms []lexindex.QueryTerm
	for _, id := range ids {
		terms = s.lex.TermsOf(terms, id, w)
	}
	return s.lex.SearchTerms(terms, k, allow)
}

// fresh returns the namespace's Space caught up with every change
// committed before the call.
func (k *Kernel) Fresh(ctx context.Context, ns string) (*Space, error) {
	if err := k.alive(); err != nil {
		return nil, err
	}
	s := k.spaces.get(ns)
	if err := k.catchUp(ctx, s); err != nil {
		return nil, err
	}
	k.spaces.forgetIfNever(s)
	return s, nil
}

// advance catches up the namespaces this process has loaded, after a
// write: the index is warm for the next search, which would otherwise
// catch up itself. A namespace not loaded is left to load when needed, and
// a failure here is only logged: the next search catches up again.
func (k *Kernel) Advance(ctx context.Context, nss ...string) {
	for _, ns := range nss {
		s := k.spaces.loaded(ns)
		if s == nil {
			continue
		}
		if err := k.catchUp(ctx, s); err != nil && ctx.Err() == nil {
			k.log.Warn("index catch-up after a write", "namespace", ns, "err", err)
		}
	}
}

// loadAll reads every note of the namespace into a new full-text index
// and its vectors into ann if ann is not nil, else into a new Flat. ann
// is a saved index reflecting feed number annSeq: only the notes changed
// since are written to it, and it must hold exactly the store's vectors
// after (errStaleIndex if not). The reading goroutine only reads: the
// rows go in batches to another goroutine that indexes their text and
// writes their vectors (tokenising was a third of a load's time, and
// writing the vectors, the first touch of their block's pages, a
// quarter of the rest), so that a load takes little longer than reading
// the store.
func loadAll(tx amem.Tx, ns string, dim, notes int, ann *hnsw.Index, annSeq int64) (vectors, *lexindex.Index, error) {
	var vecs vectors
	if ann != nil {
		vecs = annVectors{ann}
	} else {
		flat := index.NewFlat(dim)
		flat.Grow(notes)
		vecs = flatVectors{flat}
	}
	lex := lexindex.New()
	ld := newLoader(dim)
	done := make(chan struct{})
	embedded := 0
	var indexErr error
	go func() {
		defer close(done)
		indexErr = ld.drain(func(r loadRow) error { return indexRow(r, vecs, lex, ann, annSeq, &embedded) })
	}()
	pace := newLoadPacer(notes, dim)
	err := tx.Changes(ns, 0, func(c amem.Change) error {
		pace.row()
		return ld.add(c)
	})
	ld.finish()
	<-done
	if indexErr != nil {
		err = indexErr
	}
	if err == nil && vecs.len() != embedded {
		// Every vector of the store is in the index: equal counts mean
		// it holds no others.
		err = fmt.Errorf("%w: it holds %d vectors, the store %d", errStaleIndex, vecs.len(), embedded)
	}
	return vecs, lex, err
}

// indexRow applies one row of a load: its text to lex, its vector (or
// its lack of one) to vecs when ann is nil or the row changed after
// annSeq; an unchanged row's vector must be in ann already. embedded
// counts the rows with a vector.
func indexRow(r loadRow, vecs vectors, lex *lexindex.Index, ann *hnsw.Index, annSeq int64, embedded *int) error {
	changed := ann == nil || r.seq > annSeq
	if r.deleted {
		if changed && ann != nil {
			ann.Remove(r.id)
		}
		return nil
	}
	lex.Upsert(r.id, textOf(r.text))
	if r.vec == nil {
		if changed {
			vecs.remove(r.id)
		}
		return nil
	}
	*embedded++
	if !changed {
		if !ann.Has(r.id) {
			return fmt.Errorf("%w: note %s (feed number %d) is missing", errStaleIndex, r.id, r.seq)
		}
		return nil
	}
	if err := vecs.upsert(r.id, r.vec); err != nil {
		return fmt.Errorf("note %s: %w", r.id, err)
	}
	return nil
}

// load reads the namespace afresh, in tx: from its saved approximate
// index caught up with the feed, when there is one the store bears out,
// else every vector into a Flat (which catchUp may then start replacing
// with an approximate index in the background). With the saved index it
// reads the saved full-text index too when there is one, and then only
// the notes changed since the files were written, and the IDs of the
// rest (loadSaved). The files themselves are read by a file reader
// (readers.go), not here. It reports the feed number of the vector
// index file it used, or -1.
func (k *Kernel) load(ctx context.Context, tx amem.Tx, ns string, f amem.Feed) (vectors, *lexindex.Index, int64, error) {
	st, err := tx.Stats(ns)
	if err != nil {
		return nil, nil, -1, err
	}
	dim := k.emb.Dimensions()
	saved, err := k.savedFiles(ctx, ns, f)
	if err != nil {
		return nil, nil, -1, err
	}
	if ann, seq := saved.ann, saved.annSeq; ann != nil {
		if lex, lexSeq := saved.lex, saved.lexSeq; lex != nil {
			vecs, err := loadSaved(tx, ns, ann, seq, lex, lexSeq)
			if err == nil {
				k.annLoads.Add(1)
				k.lexLoads.Add(1)
				return vecs, lex, seq, nil
			}
			if !errors.Is(err, errStaleIndex) {
				return nil, nil, -1, err
			}
			// Either file may be the one the store contradicts, and ann
			// has taken changes: drop both, build afresh.
			k.dropSaved(ns, err, annExt, vecExt, lexExt)
			return k.loadFlat(tx, ns, dim, st.Notes)
		}
		vecs, lex, err := loadAll(tx, ns, dim, st.Notes, ann, seq)
		if err == nil {
			k.annLoads.Add(1)
			return vecs, lex, seq, nil
		}
		if !errors.Is(err, errStaleIndex) {
			return nil, nil, -1, err
		}
		k.dropSaved(ns, err, annExt, vecExt)
	}
	return k.loadFlat(tx, ns, dim, st.Notes)
}

func (k *Kernel) loadFlat(tx amem.Tx, ns string, dim, notes int) (vectors, *lexindex.Index, int64, error) {
	vecs, lex, err := loadAll(tx, ns, dim, notes, nil, 0)
	return vecs, lex, -1, err
}

// loadSaved catches up a saved approximate index ann (reflecting feed
// number annSeq) and a saved full-text index lex (lexSeq) with the
// changes since, then checks them against the store's note IDs, read
// from an index of the store without the notes' rows: lex must hold
// exactly the store's notes, ann only store notes. Together with the
// feed numbers (within the feed, checked by the caller) that rules out
// files of another namespace or database; what it cannot tell is a
// note whose vector a different database holds under the same ID and
// feed number. A mismatch is errStaleIndex.
func loadSaved(tx amem.Tx, ns string, ann *hnsw.Index, annSeq int64, lex *lexindex.Index, lexSeq int64) (vectors, error) {
	vecs := annVectors{ann}
	err := tx.Changes(ns, min(annSeq, lexSeq), func(c amem.Change) error {
		if c.Seq > lexSeq {
			if c.Deleted {
				lex.Remove(c.ID)
			} else {
				lex.Upsert(c.ID, textOf(c.Note))
			}
		}
		if c.Seq > annSeq {
			return applyVector(vecs, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ids, err := tx.MatchIDs(ns, amem.Filter{})
	if err != nil {
		return nil, err
	}
	inANN := 0
	for _, id := range ids {
		if !lex.Has(id) {
			return nil, fmt.Errorf("%w: note %s is missing from the full-text index", errStaleIndex, id)
		}
		if ann.Has(id) {
			inANN++
		}
	}
	if lex.Len() != len(ids) || inANN != ann.Len() {
		return nil, fmt.Errorf("%w: the indexes hold %d and %d notes, %d and %d of them the store's",
			errStaleIndex, lex.Len(), ann.Len(), len(ids), inANN)
	}
	return vecs, nil
}

// catchUp brings the Space's indexes to the feed's head: in one read
// transaction it reads the head and, if the indexes are behind, the
// changes since (or, for indexes never loaded or behind the feed's
// compaction horizon, every note). An approximate index built in the
// background is swapped in here, caught up from the feed number it was
// built at. The indexes are swapped or patched only after the read, so
// searches go on meanwhile.
func (k *Kernel) catchUp(ctx context.Context, s *Space) error {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.turn }()

	s.mu.RLock()
	seq, built := s.seq, s.built
	s.mu.RUnlock()
	seen := built // swapped in or dropped below, either way done with

	var (
		head    int64
		full    vectors
		fullLex *lexindex.Index
		fileSeq int64
		changes []amem.Change
	)
	err := k.view(ctx, func(tx amem.Tx) error {
		f, err := tx.FeedHead(s.ns)
		if err != nil {
			return err
		}
		if f.Embedder != "" {
			if err := k.checkInfo(amem.NamespaceInfo{Name: s.ns, Embedder: f.Embedder, Dimensions: f.Dimensions}); err != nil {
				return err
			}
		}
		head = f.Head
		if built != nil && (built.seq < f.Horizon || built.seq > head) {
			// Built from a feed since compacted past it, or from a
			// database since restored: only a new build is sure.
			built = nil
		}
		switch {
		case seq >= 0 && head == seq && built == nil:
			return nil
		case seq < 0 || seq < f.Horizon || head < seq:
			// head < seq: the feed went back (a restored database);
			// only a reload is sure.
			built = nil
			full, fullLex, fileSeq, err = k.load(ctx, tx, s.ns, f)
			return err
		}
		from := seq
		if built != nil {
			from = min(seq, built.seq)
		}
		return tx.Changes(s.ns, from, func(c amem.Change) error {
			n := c.Note
			c.Note = amem.Note{Content: n.Content, Context: n.Context, Keywords: n.Keywords, Tags: n.Tags,
				EventTime: n.EventTime, Embedding: append([]float32(nil), n.Embedding...)}
			changes = append(changes, c)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("namespace %s: %w", s.ns, err)
	}

	// The built index is this catch-up's alone (the build that made it
	// is over), so it is brought up to date before the lock is taken.
	if built != nil {
		x := annVectors{built.x}
		for _, c := range changes {
			if c.Seq > built.seq {
				if err := applyVector(x, c); err != nil {
					s.mu.Lock()
					s.built, s.building = nil, false
					s.mu.Unlock()
					return fmt.Errorf("namespace %s: note %s: %w", s.ns, c.ID, err)
				}
			}
		}
	}

	s.mu.Lock()
	if seen != nil && s.built == seen {
		s.built, s.building = nil, false
	}
	switch {
	case full != nil:
		s.idx, s.lex = full, fullLex
		if fileSeq >= 0 {
			s.saved = fileSeq
		}
	default:
		if built != nil {
			s.idx = annVectors{built.x}
			s.saved = built.saved
		}
		for _, c := range changes {
			if c.Seq <= seq {
				continue
			}
			if c.Deleted {
				s.lex.Remove(c.ID)
			} else {
				s.lex.Upsert(c.ID, textOf(c.Note))
			}
			if built != nil {
				continue
			}
			if err := applyVector(s.idx, c); err != nil {
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
	k.maybeBuild(s)
	k.maybeResave(s)
	s.mu.Unlock()
	if full != nil || len(changes) > 0 || built != nil {
		k.spaces.evict(s)
	}
	return nil
}

// applyVector applies a change of the feed to a vector index.
func applyVector(v vectors, c amem.Change) error {
	if c.Deleted || len(c.Note.Embedding) == 0 {
		v.remove(c.ID)
		return nil
	}
	return v.upsert(c.ID, c.Note.Embedding)
}
