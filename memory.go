package amem

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/amem-dev/amem/index"
)

// Memory is an A-Mem memory system over a Store. It is safe for concurrent
// use: reads run in parallel; writes to one namespace are serialised (the
// store's transaction and the in-memory index change together), writes to
// different namespaces run in parallel. Curator and embedder calls happen
// outside any lock.
type Memory struct {
	store Store
	opts  Options
	log   *slog.Logger
	ids   idSource

	mu     sync.Mutex // guards closed and spaces
	closed bool
	spaces map[string]*space

	wakeOnce sync.Once
	wake     chan struct{} // see wakeChan

	flightMu sync.Mutex
	flights  map[string]chan struct{} // enrichments running, by namespace and ID; closed when done
}

// space is the in-memory side of one namespace: its vector index.
type space struct {
	write sync.Mutex   // held across a write's transaction and index update
	mu    sync.RWMutex // guards idx
	once  sync.Once
	err   error
	idx   *index.Flat

	warm   sync.Mutex // held while the curator is warmed
	warmed bool
}

// Open returns a Memory over store. The store stays owned by the caller
// only until Open succeeds: Memory.Close closes it.
func Open(ctx context.Context, store Store, opts *Options) (*Memory, error) {
	if store == nil {
		return nil, invalidf("store is nil")
	}
	o := opts.withDefaults()
	if o.Embedder == nil {
		return nil, invalidf("Options.Embedder is nil; use package local for the offline default or pass one")
	}
	if o.Embedder.Dimensions() <= 0 {
		return nil, invalidf("embedder %s reports %d dimensions", o.Embedder.Name(), o.Embedder.Dimensions())
	}
	m := &Memory{store: store, opts: o, log: o.Logger, spaces: make(map[string]*space)}
	// Check the store answers before handing the Memory out.
	if err := store.View(ctx, func(tx Tx) error { _, err := tx.Namespaces(); return err }); err != nil {
		return nil, fmt.Errorf("open memory: %w", err)
	}
	return m, nil
}

// Close closes the store. Calls after Close return ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.spaces = nil
	m.mu.Unlock()
	return m.store.Close()
}

// Embedder returns the configured embedder.
func (m *Memory) Embedder() Embedder { return m.opts.Embedder }

// space returns the namespace's index, loading it from the store on first
// use. Loading lazily keeps Open fast with many namespaces; once loaded an
// index is kept in sync by every write.
func (m *Memory) space(ctx context.Context, ns string) (*space, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	s := m.spaces[ns]
	if s == nil {
		s = &space{}
		m.spaces[ns] = s
	}
	m.mu.Unlock()
	s.once.Do(func() { s.err = m.load(ctx, ns, s) })
	if s.err != nil {
		// A failed load (say, a cancelled context) must not stick.
		m.mu.Lock()
		if m.spaces != nil && m.spaces[ns] == s {
			delete(m.spaces, ns)
		}
		m.mu.Unlock()
		return nil, s.err
	}
	return s, nil
}

func (m *Memory) load(ctx context.Context, ns string, s *space) error {
	emb := m.opts.Embedder
	idx := index.NewFlat(emb.Dimensions())
	err := m.store.View(ctx, func(tx Tx) error {
		info, err := tx.Namespace(ns)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := m.checkInfo(info); err != nil {
			return err
		}
		return tx.Embeddings(ns, func(id string, vec []float32) error {
			return idx.Upsert(id, vec)
		})
	})
	if err != nil {
		return fmt.Errorf("load namespace %s: %w", ns, err)
	}
	s.idx = idx
	return nil
}

// checkInfo refuses a namespace embedded by another model: its vectors
// would not be comparable with ours.
func (m *Memory) checkInfo(info NamespaceInfo) error {
	emb := m.opts.Embedder
	if info.Dimensions != emb.Dimensions() || info.Embedder != emb.Name() {
		return fmt.Errorf("%w: namespace %s holds %d-dimension vectors from %s, but the embedder is %s (%d); use that embedder or re-embed the namespace",
			ErrDimensionMismatch, info.Name, info.Dimensions, info.Embedder, emb.Name(), emb.Dimensions())
	}
	return nil
}

// ensureNamespace records the embedder of a new namespace, inside the
// write transaction that stores its first note.
func (m *Memory) ensureNamespace(tx Tx, ns string) error {
	info, err := tx.Namespace(ns)
	if errors.Is(err, ErrNotFound) {
		return tx.PutNamespace(NamespaceInfo{
			Name: ns, Embedder: m.opts.Embedder.Name(), Dimensions: m.opts.Embedder.Dimensions(),
			CreatedAt: m.opts.Now().UTC(),
		})
	}
	if err != nil {
		return err
	}
	return m.checkInfo(info)
}

// embed embeds texts and checks the vectors' shape: an embedder that
// returns the wrong count or length is an error, never a stored vector.
func (m *Memory) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vecs, err := m.opts.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embed: %s returned %d vectors for %d texts", m.opts.Embedder.Name(), len(vecs), len(texts))
	}
	dim := m.opts.Embedder.Dimensions()
	for _, v := range vecs {
		if len(v) != dim {
			return nil, fmt.Errorf("%w: %s returned a %d-dimension vector, expected %d", ErrDimensionMismatch, m.opts.Embedder.Name(), len(v), dim)
		}
	}
	return vecs, nil
}

// writeUnit runs fn in a write transaction while holding the namespace's
// write lock, then applies the index changes fn queued, so that the index
// never runs ahead of or behind the store.
func (m *Memory) writeUnit(ctx context.Context, ns string, fn func(tx Tx, ix *indexOps) error) error {
	return m.writeMulti(ctx, []string{ns}, fn)
}

// writeMulti is writeUnit over several namespaces (an import).
func (m *Memory) writeMulti(ctx context.Context, nss []string, fn func(tx Tx, ix *indexOps) error) error {
	w, err := m.lock(ctx, nss)
	if err != nil {
		return err
	}
	defer w.unlock()
	return w.commit(ctx, fn)
}

// locked is a set of namespaces whose write locks are held.
type locked struct {
	m      *Memory
	def    string
	spaces map[string]*space
	order  []string
}

// lock takes the write locks of nss in sorted order, so two writes over
// several namespaces can't deadlock. Index operations default to nss[0].
func (m *Memory) lock(ctx context.Context, nss []string) (*locked, error) {
	sorted := slices.Clone(nss)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	w := &locked{m: m, def: nss[0], spaces: make(map[string]*space, len(sorted)), order: sorted}
	for _, ns := range sorted {
		s, err := m.space(ctx, ns)
		if err != nil {
			return nil, err
		}
		w.spaces[ns] = s
	}
	for _, ns := range sorted {
		w.spaces[ns].write.Lock()
	}
	return w, nil
}

func (w *locked) unlock() {
	for _, ns := range w.order {
		w.spaces[ns].write.Unlock()
	}
}

// commit runs fn in a write transaction and, once it has committed,
// applies the index changes fn queued.
func (w *locked) commit(ctx context.Context, fn func(tx Tx, ix *indexOps) error) error {
	var ops *indexOps
	if err := w.m.store.Update(ctx, func(tx Tx) error {
		ops = &indexOps{def: w.def}
		return fn(tx, ops)
	}); err != nil {
		return err
	}
	for _, op := range ops.ops {
		s := w.spaces[op.ns]
		if s == nil {
			return fmt.Errorf("index change for namespace %s outside the write", op.ns)
		}
		s.mu.Lock()
		var err error
		if op.vec == nil {
			s.idx.Remove(op.id)
		} else {
			// Vectors were checked before the commit; failing here is a bug.
			err = s.idx.Upsert(op.id, op.vec)
		}
		s.mu.Unlock()
		if err != nil {
			return fmt.Errorf("index out of sync with store: %w", err)
		}
	}
	return nil
}

// indexOps queues index changes made by a write transaction; they are
// applied only after it commits.
type indexOps struct {
	def string
	ops []indexOp
}

type indexOp struct {
	ns, id string
	vec    []float32 // nil: remove
}

func (o *indexOps) put(id string, vec []float32) { o.putIn(o.def, id, vec) }

func (o *indexOps) putIn(ns, id string, vec []float32) {
	o.ops = append(o.ops, indexOp{ns: ns, id: id, vec: vec})
}

func (o *indexOps) remove(id string) { o.ops = append(o.ops, indexOp{ns: o.def, id: id}) }

func (m *Memory) view(ctx context.Context, fn func(Tx) error) error {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return m.store.View(ctx, fn)
}

// AddRequest is a new memory.
type AddRequest struct {
	Namespace string
	Content   string
	// EventTime is when it was said or happened; zero means now. Any
	// other time must pass ValidEventTime.
	EventTime time.Time
	// Keywords, Tags and Metadata given by the caller are kept; the
	// curator adds to keywords and tags.
	Keywords []string
	Tags     []string
	Metadata map[string]string
	// Wait enriches the note before Add returns even when Options.Async
	// is set (a background worker then leaves it alone).
	Wait bool
}

// Add stores a note and, unless Options.Async is set, enriches it. The note
// is durable and searchable once the first transaction commits; if the
// curator then fails, Add still returns the stored note, marked failed,
// and a nil error (Enrich retries it); if ctx ends during enrichment, the
// stored note comes back pending.
func (m *Memory) Add(ctx context.Context, req AddRequest) (Note, error) {
	notes, err := m.AddBatch(ctx, []AddRequest{req})
	if err != nil {
		return Note{}, unwrapBatch(err)
	}
	return notes[0], nil
}

// MaxBatch bounds the notes of one AddBatch.
const MaxBatch = 1000

// AddBatch stores several notes in one transaction: all of them or, on any
// error (an invalid request is reported with its index), none. Then each
// is enriched as Add would, in order. The notes come back in request
// order. Once stored, the notes are returned without error even if
// enrichment can't run (ctx ends, the store fails): they stay pending, to
// be enriched by RunWorkers or EnrichPending.
func (m *Memory) AddBatch(ctx context.Context, reqs []AddRequest) ([]Note, error) {
	if len(reqs) == 0 {
		return nil, invalidf("no notes to add")
	}
	if len(reqs) > MaxBatch {
		return nil, invalidf("%d notes in one batch, at most %d", len(reqs), MaxBatch)
	}
	notes := make([]Note, len(reqs))
	var nss []string
	for i, req := range reqs {
		n, err := m.newNote(req)
		if err != nil {
			return nil, &batchError{i, err}
		}
		notes[i] = n
		nss = append(nss, n.Namespace)
	}
	if err := m.embedNotes(ctx, notes); err != nil {
		return nil, err
	}
	err := m.writeMulti(ctx, nss, func(tx Tx, ix *indexOps) error {
		for i, n := range notes {
			if err := m.insertNew(tx, ix, n, ActorUser, "added"); err != nil {
				return &batchError{i, err}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	m.enrichNew(ctx, notes, func(i int) bool { return reqs[i].Wait })
	return notes, nil
}

// insertNew stores a new note, embedded, with its first version, inside
// a write.
func (m *Memory) insertNew(tx Tx, ix *indexOps, n Note, actor Actor, reason string) error {
	if err := m.ensureNamespace(tx, n.Namespace); err != nil {
		return err
	}
	if err := tx.InsertNote(n); err != nil {
		return err
	}
	if err := tx.AddVersion(m.version(n, actor, reason, nil)); err != nil {
		return err
	}
	ix.putIn(n.Namespace, n.ID, n.Embedding)
	return nil
}

// enrichNew enriches notes just stored, in place, in order: at once when
// the Memory is not Async or wait(i) says so, else by waking the workers.
// Failures are logged, not returned: the notes are stored, and failing
// now would make a caller add them again. They stay pending for the
// workers or a retry.
func (m *Memory) enrichNew(ctx context.Context, notes []Note, wait func(i int) bool) {
	woken := false
	for i, n := range notes {
		notes[i].Embedding = nil
		if n.Enrichment.State != EnrichPending {
			continue
		}
		if !m.opts.Async || (wait != nil && wait(i)) {
			done, err := m.enrichAfterWrite(ctx, n.Namespace, n.ID)
			if err == nil {
				notes[i] = done
				continue
			}
			m.log.Warn("enrichment after add", "namespace", n.Namespace, "note", n.ID, "err", err)
		}
		if !woken {
			m.notify()
			woken = true
		}
	}
}

// batchError is an error of one request of a batch.
type batchError struct {
	index int
	err   error
}

func (e *batchError) Error() string { return fmt.Sprintf("note %d: %v", e.index, e.err) }
func (e *batchError) Unwrap() error { return e.err }

// unwrapBatch drops the batch index from an error of a one-note batch.
func unwrapBatch(err error) error {
	var be *batchError
	if errors.As(err, &be) && err == error(be) {
		return be.err
	}
	if errors.As(err, &be) {
		return fmt.Errorf("add: %w", be.err)
	}
	return err
}

// enrichAfterWrite enriches a note just written: a curator failure is
// recorded on the note, not returned, since the write itself succeeded.
func (m *Memory) enrichAfterWrite(ctx context.Context, ns, id string) (Note, error) {
	n, err := m.enrichOnce(ctx, ns, id, notDone)
	var ee *EnrichError
	if errors.As(err, &ee) {
		return n, nil
	}
	return n, err
}

func (m *Memory) newNote(req AddRequest) (Note, error) {
	ns := req.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	if err := ValidNamespace(ns); err != nil {
		return Note{}, err
	}
	if err := m.validContent(req.Content); err != nil {
		return Note{}, err
	}
	kw, err := validTerms("keywords", req.Keywords, MaxKeywords)
	if err != nil {
		return Note{}, err
	}
	tags, err := validTerms("tags", req.Tags, MaxTags)
	if err != nil {
		return Note{}, err
	}
	if err := validMetadata(req.Metadata); err != nil {
		return Note{}, err
	}
	if !req.EventTime.IsZero() {
		if err := ValidEventTime(req.EventTime); err != nil {
			return Note{}, err
		}
	}
	now := m.opts.Now().UTC()
	ev := req.EventTime
	if ev.IsZero() {
		ev = now
	}
	state := EnrichPending
	if m.opts.Curator == nil {
		state = EnrichDone
	}
	var md map[string]string
	if len(req.Metadata) > 0 {
		md = maps.Clone(req.Metadata)
	}
	return Note{
		ID:         m.ids.next(now),
		Namespace:  ns,
		Content:    req.Content,
		EventTime:  ev.UTC(),
		IngestTime: now,
		UpdatedAt:  now,
		Keywords:   kw,
		Tags:       tags,
		Metadata:   md,
		Links:      []Link{},
		Version:    1,
		Enrichment: Enrichment{State: state},
	}, nil
}

// version builds the history row for n's current state; prev is the state
// before the change (nil for a new note).
func (m *Memory) version(n Note, actor Actor, reason string, prev *Note) Version {
	snap := n.snapshot()
	var changes []FieldChange
	if prev == nil {
		changes = diffSnapshots(Snapshot{}, snap)
	} else {
		changes = diffSnapshots(prev.snapshot(), snap)
	}
	return Version{
		NoteID: n.ID, Namespace: n.Namespace, Version: n.Version,
		Actor: actor, Reason: reason, Changes: changes, Snapshot: snap,
		CreatedAt: n.UpdatedAt,
	}
}

// Get returns a note of the namespace, with its embedding and links.
func (m *Memory) Get(ctx context.Context, ns, id string) (Note, error) {
	if err := validID(id); err != nil {
		return Note{}, err
	}
	if err := ValidNamespace(ns); err != nil {
		return Note{}, err
	}
	var n Note
	err := m.view(ctx, func(tx Tx) error {
		var err error
		n, err = tx.Note(ns, id)
		return err
	})
	return n, err
}

// Lookup finds a note by ID in any namespace. It is for administration
// (the CLI resolving an ID); servers must use Get, which keeps namespaces
// apart.
func (m *Memory) Lookup(ctx context.Context, id string) (Note, error) {
	if err := validID(id); err != nil {
		return Note{}, err
	}
	var n Note
	err := m.view(ctx, func(tx Tx) error {
		var err error
		n, err = tx.FindNote(id)
		return err
	})
	return n, err
}

// List pages through a namespace's notes in ID (creation) order.
func (m *Memory) List(ctx context.Context, ns string, q ListQuery) ([]Note, error) {
	if err := ValidNamespace(ns); err != nil {
		return nil, err
	}
	if q.After != "" {
		if err := validID(q.After); err != nil {
			return nil, err
		}
	}
	var notes []Note
	err := m.view(ctx, func(tx Tx) error {
		var err error
		notes, err = tx.ListNotes(ns, q)
		return err
	})
	return notes, err
}

// Namespaces lists every namespace.
func (m *Memory) Namespaces(ctx context.Context) ([]NamespaceInfo, error) {
	var out []NamespaceInfo
	err := m.view(ctx, func(tx Tx) error {
		var err error
		out, err = tx.Namespaces()
		return err
	})
	return out, err
}

// UpdateRequest changes a note. Nil fields are left as they are.
type UpdateRequest struct {
	Content *string
	// EventTime, when non-nil, must pass ValidEventTime: a pointer to the
	// zero time is ErrInvalid, never an erased time.
	EventTime *time.Time
	Keywords  *[]string
	Tags      *[]string
	Context   *string
	// Metadata, when non-nil, replaces the whole map.
	Metadata map[string]string
	// Reason is kept in the note's history.
	Reason string
}

// Update changes a note, writes a version and re-embeds it. A content edit
// also clears the curator-written keywords and context (unless given) and
// re-enriches the note, replacing the links it chose.
func (m *Memory) Update(ctx context.Context, ns, id string, req UpdateRequest) (Note, error) {
	if err := validID(id); err != nil {
		return Note{}, err
	}
	if err := ValidNamespace(ns); err != nil {
		return Note{}, err
	}
	if req.Content != nil {
		if err := m.validContent(*req.Content); err != nil {
			return Note{}, err
		}
	}
	if req.EventTime != nil {
		if err := ValidEventTime(*req.EventTime); err != nil {
			return Note{}, err
		}
	}
	var kw, tags []string
	var err error
	if req.Keywords != nil {
		if kw, err = validTerms("keywords", *req.Keywords, MaxKeywords); err != nil {
			return Note{}, err
		}
	}
	if req.Tags != nil {
		if tags, err = validTerms("tags", *req.Tags, MaxTags); err != nil {
			return Note{}, err
		}
	}
	if req.Context != nil {
		if err := validContext(*req.Context); err != nil {
			return Note{}, err
		}
	}
	if req.Metadata != nil {
		if err := validMetadata(req.Metadata); err != nil {
			return Note{}, err
		}
	}
	apply := func(n Note) Note {
		n = n.Clone()
		if req.Content != nil && *req.Content != n.Content {
			n.Content = *req.Content
			n.Keywords, n.Context = []string{}, ""
			if m.opts.Curator != nil {
				n.Enrichment = Enrichment{State: EnrichPending, Attempts: n.Enrichment.Attempts, At: n.Enrichment.At}
			}
		}
		if req.EventTime != nil {
			n.EventTime = req.EventTime.UTC()
		}
		if req.Keywords != nil {
			n.Keywords = kw
		}
		if req.Tags != nil {
			n.Tags = tags
		}
		if req.Context != nil {
			n.Context = *req.Context
		}
		if req.Metadata != nil {
			n.Metadata = maps.Clone(req.Metadata)
			if len(n.Metadata) == 0 {
				n.Metadata = nil
			}
		}
		return n
	}
	reason := req.Reason
	if reason == "" {
		reason = "updated"
	}
	n, err := m.change(ctx, ns, id, ActorUser, reason, apply)
	if err != nil {
		return Note{}, fmt.Errorf("update %s: %w", id, err)
	}
	if n.Enrichment.State == EnrichPending {
		if m.opts.Async {
			m.notify()
			return n, nil
		}
		return m.enrichAfterWrite(ctx, ns, id)
	}
	return n, nil
}

// change applies fn to a note as one versioned, re-embedded write. The
// embedding is computed outside the lock; if the note changed meanwhile
// the change is computed again on the new state.
func (m *Memory) change(ctx context.Context, ns, id string, actor Actor, reason string, fn func(Note) Note) (Note, error) {
	for attempt := 0; ; attempt++ {
		cur, err := m.Get(ctx, ns, id)
		if err != nil {
			return Note{}, err
		}
		next := fn(cur)
		if sameSnapshot(cur.snapshot(), next.snapshot()) && next.Enrichment == cur.Enrichment {
			return cur, nil
		}
		vecs, err := m.embed(ctx, []string{m.opts.EmbedText(next)})
		if err != nil {
			return Note{}, err
		}
		next.Embedding = vecs[0]
		next.Version = cur.Version + 1
		next.UpdatedAt = m.opts.Now().UTC()
		var stale bool
		err = m.writeUnit(ctx, ns, func(tx Tx, ix *indexOps) error {
			now, err := tx.Note(ns, id)
			if err != nil {
				return err
			}
			if now.Version != cur.Version {
				stale = true
				return nil
			}
			if err := tx.UpdateNote(next); err != nil {
				return err
			}
			if err := tx.AddVersion(m.version(next, actor, reason, &cur)); err != nil {
				return err
			}
			ix.put(id, next.Embedding)
			return nil
		})
		if err != nil {
			return Note{}, err
		}
		if !stale {
			return m.Get(ctx, ns, id)
		}
		if attempt == 5 {
			return Note{}, fmt.Errorf("note %s kept changing under the write; try again", id)
		}
	}
}

// Delete removes a note, every link touching it and its history.
func (m *Memory) Delete(ctx context.Context, ns, id string) error {
	if err := validID(id); err != nil {
		return err
	}
	if err := ValidNamespace(ns); err != nil {
		return err
	}
	return m.writeUnit(ctx, ns, func(tx Tx, ix *indexOps) error {
		if err := tx.DeleteNote(ns, id); err != nil {
			return err
		}
		ix.remove(id)
		return nil
	})
}

// Neighbor is a linked note seen from one end of the link.
type Neighbor struct {
	Link Link `json:"link"`
	Note Note `json:"note"`
}

// Links returns the notes linked to id, in both directions, strongest
// link first.
func (m *Memory) Links(ctx context.Context, ns, id string) ([]Neighbor, error) {
	n, err := m.Get(ctx, ns, id)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(n.Links))
	for _, l := range n.Links {
		ids = append(ids, l.Other(id))
	}
	var others []Note
	if err := m.view(ctx, func(tx Tx) error {
		var err error
		others, err = tx.Notes(ns, ids)
		return err
	}); err != nil {
		return nil, err
	}
	byID := make(map[string]Note, len(others))
	for _, o := range others {
		byID[o.ID] = o
	}
	out := make([]Neighbor, 0, len(n.Links))
	for _, l := range n.Links {
		if o, ok := byID[l.Other(id)]; ok {
			out = append(out, Neighbor{Link: l, Note: o})
		}
	}
	slices.SortStableFunc(out, func(a, b Neighbor) int { return cmpStrength(a.Link, b.Link) })
	return out, nil
}

func cmpStrength(a, b Link) int {
	switch {
	case a.Strength > b.Strength:
		return -1
	case a.Strength < b.Strength:
		return 1
	}
	return a.CreatedAt.Compare(b.CreatedAt)
}

// History returns every version of a note, oldest first.
func (m *Memory) History(ctx context.Context, ns, id string) ([]Version, error) {
	var vs []Version
	err := m.viewNote(ctx, ns, id, func(tx Tx) (err error) {
		vs, err = tx.Versions(ns, id)
		return err
	})
	return vs, err
}

// viewNote runs fn in a read transaction if the note exists; a bad
// namespace or ID, or a missing note, is an error.
func (m *Memory) viewNote(ctx context.Context, ns, id string, fn func(Tx) error) error {
	if err := validID(id); err != nil {
		return err
	}
	if err := ValidNamespace(ns); err != nil {
		return err
	}
	return m.view(ctx, func(tx Tx) error {
		if _, err := tx.Note(ns, id); err != nil {
			return err
		}
		return fn(tx)
	})
}

// NoteUsage returns the model tokens spent enriching a note, by operation
// (construct, connect, evolve), failed attempts included. Tokens a note's
// enrichment spent on evolving its neighbours count for it, not for them.
func (m *Memory) NoteUsage(ctx context.Context, ns, id string) ([]UsageTotal, error) {
	var out []UsageTotal
	err := m.viewNote(ctx, ns, id, func(tx Tx) (err error) {
		out, err = tx.NoteUsage(ns, id)
		return err
	})
	return out, err
}

// Restore brings a note's content, time, keywords, tags, context and
// metadata back to an earlier version, as a new version. Links are kept.
func (m *Memory) Restore(ctx context.Context, ns, id string, version int) (Note, error) {
	vs, err := m.History(ctx, ns, id)
	if err != nil {
		return Note{}, err
	}
	i := slices.IndexFunc(vs, func(v Version) bool { return v.Version == version })
	if i < 0 {
		return Note{}, fmt.Errorf("%w: note %s has no version %d (it has 1-%d)", ErrNotFound, id, version, len(vs))
	}
	snap := vs[i].Snapshot
	return m.change(ctx, ns, id, ActorRestore, fmt.Sprintf("restored to version %d", version), func(n Note) Note {
		n = n.Clone()
		s := Note{Keywords: snap.Keywords, Tags: snap.Tags, Metadata: snap.Metadata}.Clone()
		n.Content, n.EventTime, n.Context = snap.Content, snap.EventTime, snap.Context
		n.Keywords, n.Tags, n.Metadata = s.Keywords, s.Tags, s.Metadata
		return n
	})
}

// Stats describes a namespace: counts and token usage.
type Stats struct {
	Namespace string `json:"namespace"`
	NamespaceStats
	Embedder   string `json:"embedder"`
	Dimensions int    `json:"dimensions"`
	// Usage is per operation; PromptTokens and CompletionTokens (from the
	// embedded Usage) are the namespace's totals.
	Usage  []UsageTotal `json:"usage"`
	Tokens Usage        `json:"tokens"`
}

// Stats returns counts and token usage per namespace; an empty ns means
// every namespace.
func (m *Memory) Stats(ctx context.Context, ns string) ([]Stats, error) {
	var out []Stats
	err := m.view(ctx, func(tx Tx) error {
		infos, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, info := range infos {
			if ns != "" && info.Name != ns {
				continue
			}
			st, err := tx.Stats(info.Name)
			if err != nil {
				return err
			}
			u, err := tx.UsageTotals(info.Name)
			if err != nil {
				return err
			}
			var total Usage
			for _, x := range u {
				total = total.Add(x.Usage)
			}
			out = append(out, Stats{Namespace: info.Name, NamespaceStats: st, Embedder: info.Embedder, Dimensions: info.Dimensions, Usage: u, Tokens: total})
		}
		return nil
	})
	return out, err
}
