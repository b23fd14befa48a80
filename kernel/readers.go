package kernel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/index/hnsw"
	"github.com/amem-dev/amem/lexindex"
)

// A namespace's saved index files (annfile.go) are opened, mapped, read
// and checked by file readers: goroutines New starts and Close stops,
// like the maintainer (maintain.go). A search that must load a namespace
// asks one and waits for what it read, honouring its context; it never
// opens a file itself. There are several readers, not one, so that first
// loads of different namespaces still read their files side by side; a
// namespace's loads are serialised before they get here, by its Space's
// turn (catchUp). A load that gave up waiting leaves its reader to
// finish, and what it read is dropped. After Close a request fails with
// amem.ErrClosed and nothing is opened.

// fileReaders is how many namespaces' files may be read at once; a load
// past them waits for one to finish. Reading a saved graph is mostly
// decoding it, a core's work, so more readers than a small machine's
// cores would only share them.
const fileReaders = 4

// savedFiles is what a reader found of a namespace's saved indexes: its
// approximate index and the feed number it reflects (nil, -1: none
// usable) and, only beside one, its full-text index (nil, -1: none).
type savedFiles struct {
	ann    *hnsw.Index
	annSeq int64
	lex    *lexindex.Index
	lexSeq int64
}

var noSavedFiles = savedFiles{annSeq: -1, lexSeq: -1}

// readRequest asks a reader for ns's saved files within feed f; the
// answer comes back on reply, which has room for it, so that a reader
// never waits on a search that gave up.
type readRequest struct {
	ns    string
	f     amem.Feed
	reply chan readAnswer
}

type readAnswer struct {
	files savedFiles
	err   error
}

// readHook, set only by tests (export_test.go), runs on the goroutine
// about to read a namespace's files, first.
var readHook atomic.Pointer[func(ns string)]

// startReaders starts the file readers; New calls it.
func (k *Kernel) startReaders() {
	k.reads = make(chan readRequest)
	k.readers.Add(fileReaders)
	for range fileReaders {
		go k.readFiles()
	}
}

// readFiles is a file reader goroutine. It returns once Close cancels
// k.bg; a request it took just before reads nothing and fails.
func (k *Kernel) readFiles() {
	defer k.readers.Done()
	for {
		select {
		case r := <-k.reads:
			if k.bg.Err() != nil {
				r.reply <- readAnswer{err: amem.ErrClosed}
				continue
			}
			r.reply <- readAnswer{files: k.readSaved(r.ns, r.f)}
		case <-k.bg.Done():
			return
		}
	}
}

// savedFiles asks a reader for the namespace's saved index files within
// feed f and waits for them. It is the only way a load reaches a file.
func (k *Kernel) savedFiles(ctx context.Context, ns string, f amem.Feed) (savedFiles, error) {
	if !k.savesIndexes(f) {
		return noSavedFiles, nil
	}
	r := readRequest{ns: ns, f: f, reply: make(chan readAnswer, 1)}
	select {
	case k.reads <- r:
	case <-ctx.Done():
		return noSavedFiles, ctx.Err()
	case <-k.bg.Done():
		return noSavedFiles, amem.ErrClosed
	}
	select {
	case a := <-r.reply:
		if a.err != nil {
			return noSavedFiles, a.err
		}
		return a.files, nil
	case <-ctx.Done():
		// The reader finishes and its answer is dropped: a mapping
		// is released once nothing reaches it (package mmap).
		return noSavedFiles, ctx.Err()
	}
}

// readSaved reads, on a reader, the namespace's saved approximate index
// and, if there is one, its full-text index; a file the feed does not
// bear out is not used and its deletion asked for.
func (k *Kernel) readSaved(ns string, f amem.Feed) savedFiles {
	if hook := readHook.Load(); hook != nil {
		(*hook)(ns)
	}
	out := noSavedFiles
	if out.ann, out.annSeq = k.savedIndex(ns, f); out.ann != nil {
		out.lex, out.lexSeq = k.savedLex(ns, f)
	}
	return out
}

// savedIndex returns the namespace's saved index and the feed number it
// reflects, if there is one within feed f; one that is not is deleted.
// A reader's work.
func (k *Kernel) savedIndex(ns string, f amem.Feed) (*hnsw.Index, int64) {
	ann, seq, err := loadANN(k.opts.IndexDir, ns, f.Embedder, f.Dimensions, k.annOptions())
	if !k.usable(ns, f, seq, err, annExt, vecExt) {
		return nil, -1
	}
	return ann, seq
}

// savedLex is savedIndex for the full-text index.
func (k *Kernel) savedLex(ns string, f amem.Feed) (*lexindex.Index, int64) {
	lex, seq, err := loadLex(k.opts.IndexDir, ns, f.Embedder, f.Dimensions)
	if !k.usable(ns, f, seq, err, lexExt) {
		return nil, -1
	}
	return lex, seq
}

// savesIndexes reports whether the namespace of feed f may have saved
// files: a question of options, answered without a look at the disk.
func (k *Kernel) savesIndexes(f amem.Feed) bool {
	return k.opts.IndexDir != "" && k.opts.ApproximateFrom >= 0 && f.Embedder != ""
}

// usable reports whether the saved file of kind exts[0] (with its
// companions, the rest of exts), read with err and reflecting feed
// number seq, may be caught up with feed f; one that may not is deleted.
func (k *Kernel) usable(ns string, f amem.Feed, seq int64, err error, exts ...string) bool {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false
	case err != nil:
		k.dropSaved(ns, err, exts...)
		return false
	case seq < f.Horizon || seq > f.Head:
		k.dropSaved(ns, fmt.Errorf("%w: it reflects feed number %d, the feed is at %d with horizon %d", errStaleIndex, seq, f.Head, f.Horizon), exts...)
		return false
	}
	return true
}

// dropSaved has the maintainer delete saved indexes of the namespace
// (their kinds, annExt, vecExt or lexExt) that the store does not bear
// out; the load that found them reads the namespace afresh meanwhile.
func (k *Kernel) dropSaved(ns string, why error, exts ...string) {
	k.log.Warn("saved index not used; reading the namespace afresh", "namespace", ns, "err", why)
	k.ask(job{kind: jobDrop, ns: ns, exts: exts})
}
