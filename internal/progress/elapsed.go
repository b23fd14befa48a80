package progress

import (
	"io"
	"sync"
	"time"
)

// Elapsed reports a wait of unknown size, such as a download another
// program does, until stop is called: on a terminal the library's spinner
// with the time so far, in a log a whole line every Every ("label: 10s");
// stop ends it with "label: done in 12s". It starts a goroutine that stop
// ends; stop may be called more than once.
func Elapsed(w io.Writer, label string, opts Options) (stop func()) {
	b := New(w, label, 0, opts)
	b.waiting = true
	every := b.every
	if b.term != nil {
		every = redrawEvery
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				b.tick()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			wg.Wait()
			b.Done()
		})
	}
}

// tick redraws the terminal's spinner, or writes a log line when Every
// has passed since the last.
func (b *Bar) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	if b.term != nil {
		_ = b.term.Add(0)
		return
	}
	if now := b.now(); now.Sub(b.lastAt) >= b.every {
		b.report(now)
	}
}
