package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/kernel"
)

// Memory is an A-Mem memory system over a Store. It is safe for concurrent
// use, and several processes (or hosts, on a shared store) may open the
// same store: every write is a transaction of the store, compare-and-set
// on the note's version where it read the note first; the search index of
// each process follows the store's change feed (space.go); a note is
// enriched under a claim in the store (package enrich), so by one process at a
// time. Curator and embedder calls happen outside any lock and any
// transaction.
type Memory struct {
	store amem.Store
	opts  Options
	log   *slog.Logger
	ids   amem.IDSource

	closed atomic.Bool
	// k is the process's index cache, following the store's change feed.
	k *kernel.Kernel

	// enr enriches the notes (package enrich): claims, the curator's
	// warm-up, the workers' wake-ups.
	enr *enrich.Engine
}

// Open returns a Memory over store. The store stays owned by the caller
// only until Open succeeds: Memory.Close closes it.
func Open(ctx context.Context, store amem.Store, opts *Options) (*Memory, error) {
	if store == nil {
		return nil, invalidf("store is nil")
	}
	o := opts.withDefaults()
	if o.Embedder == nil {
		return nil, invalidf("Options.Embedder is nil; use package local for the offline default or pass one")
	}
	if o.Search.Ranker != nil {
		if err := o.Search.Ranker.Validate(); err != nil {
			return nil, fmt.Errorf("Options.Search.Ranker: %w", err)
		}
	}
	if o.Embedder.Dimensions() <= 0 {
		return nil, invalidf("embedder %s reports %d dimensions", o.Embedder.Name(), o.Embedder.Dimensions())
	}
	m := &Memory{
		store: store, opts: o, log: o.Logger,
		k: kernel.New(store, o.Embedder, o.Logger, o.Indexes),
	}
	m.enr = enrich.New(host{m}, enrich.Config{
		Curator: o.Curator, Logger: o.Logger, Now: o.Now, TracerProvider: o.TracerProvider,
		EmbedText: o.EmbedText, Dimensions: o.Embedder.Dimensions(),
		Options: o.Enrich,
	})
	// Check the store answers before handing the Memory out.
	if err := store.View(ctx, func(tx amem.Tx) error { _, err := tx.Namespaces(); return err }); err != nil {
		m.k.Close()
		return nil, fmt.Errorf("open memory: %w", err)
	}
	return m, nil
}

// Close stops the background index builds, saves the approximate indexes
// that changed (Options.Indexes.IndexDir) and closes the store. Calls after Close
// return ErrClosed.
func (m *Memory) Close() error {
	if m.closed.Swap(true) {
		return nil
	}
	m.k.Close()
	return m.store.Close()
}

func (m *Memory) alive() error {
	if m.closed.Load() {
		return amem.ErrClosed
	}
	return nil
}

// Embedder returns the configured embedder.
func (m *Memory) Embedder() amem.Embedder { return m.opts.Embedder }

// checkInfo refuses a namespace embedded by another model: its vectors
// would not be comparable with ours.
func (m *Memory) checkInfo(info amem.NamespaceInfo) error {
	emb := m.opts.Embedder
	if info.Dimensions != emb.Dimensions() || info.Embedder != emb.Name() {
		return &amem.EmbedderMismatchError{Namespace: info.Name, Stored: info.Embedder, StoredDimensions: info.Dimensions,
			Configured: emb.Name(), Dimensions: emb.Dimensions()}
	}
	return nil
}

// ensureNamespace records the embedder of a new namespace, inside the
// write transaction that stores its first note.
func (m *Memory) ensureNamespace(tx amem.Tx, ns string) error {
	info, err := tx.Namespace(ns)
	if errors.Is(err, amem.ErrNotFound) {
		return tx.PutNamespace(amem.NamespaceInfo{
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
// returns the wrong count or length is an error, never a stored vector. A
// text given twice is embedded once, and its vector is shared.
func (m *Memory) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	ctx, span := m.startSpan(ctx, "amem.embed", attrTexts.Int(len(texts)))
	vecs, err := m.embedTexts(ctx, texts)
	endSpan(span, err)
	return vecs, err
}

func (m *Memory) embedTexts(ctx context.Context, texts []string) ([][]float32, error) {
	unique, at := dedupe(texts)
	vecs, err := m.opts.Embedder.Embed(ctx, unique)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(unique) {
		return nil, fmt.Errorf("embed: %s returned %d vectors for %d texts", m.opts.Embedder.Name(), len(vecs), len(unique))
	}
	dim := m.opts.Embedder.Dimensions()
	for _, v := range vecs {
		if len(v) != dim {
			return nil, fmt.Errorf("%w: %s returned a %d-dimension vector, expected %d", amem.ErrDimensionMismatch, m.opts.Embedder.Name(), len(v), dim)
		}
	}
	if at == nil {
		return vecs, nil
	}
	// Each text gets its own copy: the vectors go into different notes.
	out := make([][]float32, len(texts))
	taken := make([]bool, len(vecs))
	for i, u := range at {
		if out[i] = vecs[u]; taken[u] {
			out[i] = slices.Clone(vecs[u])
		}
		taken[u] = true
	}
	return out, nil
}

// dedupe returns texts without repeats and, when there were any, where
// each text went in it (nil otherwise).
func dedupe(texts []string) (unique []string, at []int) {
	if len(texts) < 2 {
		return texts, nil
	}
	first := make(map[string]int, len(texts))
	for i, t := range texts {
		if _, ok := first[t]; !ok {
			first[t] = i
		}
	}
	if len(first) == len(texts) {
		return texts, nil
	}
	at = make([]int, len(texts))
	for i, t := range texts {
		if j := first[t]; j < i {
			at[i] = at[j]
			continue
		}
		at[i] = len(unique)
		unique = append(unique, t)
	}
	return unique, at
}

// sameVector reports whether next, a changed version of prev, can keep
// prev's vector: its embedding text is the same and prev has a vector of
// the embedder's size.
func (m *Memory) sameVector(prev, next amem.Note) bool {
	return len(prev.Embedding) == m.opts.Embedder.Dimensions() &&
		m.opts.EmbedText(prev) == m.opts.EmbedText(next)
}

// view and update run a store transaction unless the Memory is closed.
func (m *Memory) view(ctx context.Context, fn func(amem.Tx) error) error {
	if err := m.alive(); err != nil {
		return err
	}
	return m.store.View(ctx, fn)
}

func (m *Memory) update(ctx context.Context, fn func(amem.Tx) error) error {
	if err := m.alive(); err != nil {
		return err
	}
	return m.store.Update(ctx, fn)
}
