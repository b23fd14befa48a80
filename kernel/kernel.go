package kernel

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/amem-dev/amem"
)

// Options are the indexes' knobs: memory.Options.Indexes. Each zero
// field means its default.
type Options struct {
	// IndexBudget bounds the bytes the in-process indexes hold (vectors,
	// 4 per dimension per note, or the approximate index's codes and
	// links, and an estimate of the full-text index's); past it the
	// least recently used namespaces are dropped, to be reloaded from
	// the store when next used. Default DefaultIndexBudget; negative
	// means no bound.
	IndexBudget int64

	// ApproximateFrom is the number of vectors from which a namespace is
	// searched through an approximate index (package hnsw: int8 codes in
	// a graph, candidates re-ranked by their float vectors, memory-mapped
	// from a file beside the graph when IndexDir is set, else read from
	// the store) instead of an exact scan. Default DefaultApproximateFrom;
	// negative means never. The index is built in the background while
	// searches stay exact, and swapped in when ready.
	ApproximateFrom int

	// ApproximateEf is the candidate pool of an approximate search (hnsw
	// Options.EfSearch), the knob between its recall and its speed: a
	// search costs about in proportion to it. Default
	// DefaultApproximateEf.
	ApproximateEf int

	// IndexDir is where approximate indexes are saved, per namespace a
	// graph, its float vectors (memory-mapped for re-ranking, so they
	// cost no heap) and the full-text index, so that reopening a large
	// namespace reads its indexes instead of building them. Empty: not
	// saved, and re-ranking reads the store. Package local sets it
	// beside the database. The files are a cache: one the store does not
	// bear out is deleted and rebuilt.
	IndexDir string
}

// Defaults.
const (
	// DefaultIndexBudget is about 450,000 notes of 512 dimensions.
	DefaultIndexBudget = 1 << 30
	// DefaultApproximateFrom is where exact search (16 ms at 50k x 512
	// on one core) starts to cost more than an approximate index's build
	// and its 1-in-100 misses are worth; see package hnsw.
	DefaultApproximateFrom = 50_000
)

// DefaultApproximateEf is Options.ApproximateEf's default: the smallest
// pool measured that keeps recall@10 at 0.95 at 1M notes. On 1M mix
// notes (BenchmarkApproximate, one core, 2-core VM at load 5,
// 2026-12-04), through Memory.Search: recall@10 0.920 at 128, 0.942 at
// 192, 0.956 at 256, 0.972 at 384; CPU p50 1.11, 1.31, 1.47 and 1.83 ms
// (exact search 203 ms in the same run). 1 ms was not reached on that
// machine: about half of a search is the store's read of the ten hits.
// At 100k, 256 gives 0.998 on mix notes and 0.987 on the near-duplicate
// corpus. annOptions in vectors.go has the history.
const DefaultApproximateEf = 256

// WithDefaults returns o with each zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.ApproximateFrom == 0 {
		o.ApproximateFrom = DefaultApproximateFrom
	}
	if o.ApproximateEf <= 0 {
		o.ApproximateEf = DefaultApproximateEf
	}
	if o.IndexBudget == 0 {
		o.IndexBudget = DefaultIndexBudget
	}
	return o
}

// Kernel is the process's index cache: each namespace's vector and
// full-text indexes, loaded from the store and following its change
// feed (Space.go), within a memory budget; approximate indexes built in
// the background and saved to files (build.go, annfile.go).
type Kernel struct {
	store  amem.Store
	emb    amem.Embedder
	opts   Options
	log    *slog.Logger
	spaces *spaces
	closed atomic.Bool

	// bg is done at Close, which stops the maintainer (maintain.go):
	// the goroutine New starts for the background work, asked for
	// through jobs and wake; stopped is closed when it has returned.
	bg      context.Context
	stopBG  context.CancelFunc
	jobsMu  sync.Mutex
	jobs    []job
	wake    chan struct{}
	stopped chan struct{}
	// reads carries loads' requests to the file readers (readers.go),
	// which New starts with the maintainer and Close stops; readers is
	// done when they have returned.
	reads   chan readRequest
	readers sync.WaitGroup
	// annBuilds and annLoads count approximate indexes built and read
	// from Options.IndexDir, lexLoads full-text indexes read from it,
	// for monitoring (Counters).
	annBuilds, annLoads, lexLoads atomic.Int64
}

// New returns a kernel over store, holding no namespace yet, and starts
// its background work, which Close stops. Every namespace's vectors must
// have emb's name and dimensions; log receives warnings (nil:
// slog.Default()).
func New(store amem.Store, emb amem.Embedder, log *slog.Logger, opts Options) *Kernel {
	opts = opts.WithDefaults()
	if log == nil {
		log = slog.Default()
	}
	k := &Kernel{store: store, emb: emb, opts: opts, log: log, spaces: newSpaces(opts.IndexBudget)}
	k.bg, k.stopBG = context.WithCancel(context.Background())
	k.wake, k.stopped = make(chan struct{}, 1), make(chan struct{})
	go k.maintain()
	k.startReaders()
	return k
}

// Close stops the background work (a build in progress is abandoned)
// and the file readers, waits for them, and saves the approximate and full-text indexes that
// changed (Options.IndexDir). It does not close the store. Calls after
// Close fail.
func (k *Kernel) Close() {
	if k.closed.Swap(true) {
		return
	}
	k.jobsMu.Lock()
	k.stopBG()
	k.jobsMu.Unlock()
	<-k.stopped
	k.readers.Wait()
	k.saveIndexes()
}

func (k *Kernel) alive() error {
	if k.closed.Load() {
		return amem.ErrClosed
	}
	return nil
}

func (k *Kernel) view(ctx context.Context, fn func(amem.Tx) error) error {
	if err := k.alive(); err != nil {
		return err
	}
	return k.store.View(ctx, fn)
}

// checkInfo refuses a namespace embedded by another model: its vectors
// would not be comparable with the kernel's.
func (k *Kernel) checkInfo(info amem.NamespaceInfo) error {
	emb := k.emb
	if info.Dimensions != emb.Dimensions() || info.Embedder != emb.Name() {
		return &amem.EmbedderMismatchError{Namespace: info.Name, Stored: info.Embedder, StoredDimensions: info.Dimensions,
			Configured: emb.Name(), Dimensions: emb.Dimensions()}
	}
	return nil
}
