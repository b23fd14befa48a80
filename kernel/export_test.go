package kernel

import (
	"context"

	"github.com/amem-dev/amem"
)

// SetReadHook makes the file readers call f first, on their own
// goroutine, each time they are to read a namespace's saved files; it
// returns the function that removes it.
func SetReadHook(f func(ns string)) (remove func()) {
	readHook.Store(&f)
	return func() { readHook.Store(nil) }
}

// AskSavedFiles asks a file reader for ns's saved files within feed f,
// as a load does, and returns the request's error.
func (k *Kernel) AskSavedFiles(ctx context.Context, ns string, f amem.Feed) error {
	_, err := k.savedFiles(ctx, ns, f)
	return err
}

// IndexFiles are the files a namespace's approximate index, its float
// vectors and its full-text index are saved in under dir.
func IndexFiles(dir, ns string) (ann, vec, lex string) {
	return annPath(dir, ns), vecPath(dir, ns), lexPath(dir, ns)
}
