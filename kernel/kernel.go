package kernel

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/amem-dev/amem"
)

// Options configure a Kernel (memory.Open fills them from its
// Options).
type Options struct {
	// Embedder's name and dimensions are what every namespace's vectors
	// must have.
	Embedder        amem.Embedder
	IndexBudget     int64
	ApproximateFrom int
	ApproximateEf   int
	IndexDir        string
	Logger          *slog.Logger
}

// Kernel is the process's index cache: each namespace's vector and
// full-text indexes, loaded from the store and following its change
// feed (Space.go), within a memory budget; approximate indexes built in
// the background and saved to files (build.go, annfile.go).
type Kernel struct {
	store  amem.Store
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
	// annBuilds and annLoads count approximate indexes built and read
	// from Options.IndexDir, for tests; buildHook, set by tests, runs
	// at the start of each build.
	annBuilds, annLoads atomic.Int64
	buildHook           func(ns string)

	// lexLoads counts full-text indexes read from Options.IndexDir, for
	// tests.
	lexLoads atomic.Int64
	// resaveMin, set by tests, replaces resaveEvery's floor of 4,096.
	resaveMin int
}

// New returns a kernel over store, holding no namespace yet, and starts
// its background work, which Close stops.
func New(store amem.Store, opts Options) *Kernel {
	k := &Kernel{store: store, opts: opts, log: opts.Logger, spaces: newSpaces(opts.IndexBudget)}
	if k.log == nil {
		k.log = slog.Default()
	}
	k.bg, k.stopBG = context.WithCancel(context.Background())
	k.wake, k.stopped = make(chan struct{}, 1), make(chan struct{})
	go k.maintain()
	return k
}

// Close stops the background work (a build in progress is abandoned),
// waits for it, and saves the approximate and full-text indexes that
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
	emb := k.opts.Embedder
	if info.Dimensions != emb.Dimensions() || info.Embedder != emb.Name() {
		return &amem.EmbedderMismatchError{Namespace: info.Name, Stored: info.Embedder, StoredDimensions: info.Dimensions,
			Configured: emb.Name(), Dimensions: emb.Dimensions()}
	}
	return nil
}
