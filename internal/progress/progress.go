// Package progress reports how far a long job has got, on a stream meant
// for people (stderr). On a terminal it redraws one line in place; on a
// file or a pipe, where a redrawn line would run together into one long
// log line, it writes whole lines, and few of them: one per tenth of the
// job or per Every, whichever comes first.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Options configure a Bar. The zero value detects the terminal.
type Options struct {
	// Terminal forces the redrawn line (Yes) or whole lines (No); Auto
	// asks the writer: an *os.File that is a character device is a
	// terminal.
	Terminal Mode
	// Every is the longest a log (not a terminal) goes without a line
	// while the job moves (default 5s).
	Every time.Duration
	// Now is the clock (default time.Now); tests set it.
	Now func() time.Time
}

// Mode says whether the writer is a terminal.
type Mode int

const (
	Auto Mode = iota
	Yes
	No
)

// redrawEvery bounds how often a terminal line is redrawn: faster is
// flicker, and writes that slow the job down.
const redrawEvery = 100 * time.Millisecond

// Bar counts done units of a job of total units (total <= 0: unknown)
// and reports them to w. It is safe for concurrent use.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	total    int
	done     int
	term     bool
	every    time.Duration
	now      func() time.Time
	start    time.Time
	lastAt   time.Time // when the last report was written
	lastDone int       // done at the last report
	drawn    int       // width of the terminal line drawn, to blank it
	finished bool
}

// New starts a bar for a job called label (such as "importing notes").
func New(w io.Writer, label string, total int, opts Options) *Bar {
	if opts.Every <= 0 {
		opts.Every = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	term := opts.Terminal == Yes || (opts.Terminal == Auto && IsTerminal(w))
	now := opts.Now()
	return &Bar{w: w, label: label, total: total, term: term, every: opts.Every, now: opts.Now, start: now, lastAt: now}
}

// IsTerminal reports whether w is a character device, such as a
// terminal. It needs no terminal library: the mode bit is enough to tell
// a terminal from a file or a pipe, which is all a Bar needs.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Add counts n more units done and reports them if it is time.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.done += n
	now := b.now()
	if b.due(now) {
		b.report(now, false)
	}
}

// Done writes the last report, with the time the job took, and ends the
// terminal line. Later calls do nothing.
func (b *Bar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	b.report(b.now(), true)
}

// due says whether a report is owed at now.
func (b *Bar) due(now time.Time) bool {
	if b.term {
		return now.Sub(b.lastAt) >= redrawEvery || (b.total > 0 && b.done >= b.total)
	}
	if b.done == b.lastDone || (b.total > 0 && b.done >= b.total) {
		return false // nothing new, or all done: Done's line says it
	}
	if now.Sub(b.lastAt) >= b.every {
		return true
	}
	// A tenth of the job since the last line: ten lines at most for a
	// fast job, whatever its size.
	return b.total > 0 && (b.done-b.lastDone)*10 >= b.total
}

func (b *Bar) report(now time.Time, final bool) {
	line := b.line(now, final)
	if b.term {
		pad := max(b.drawn-len(line), 0)
		fmt.Fprintf(b.w, "\r%s%*s", line, pad, "")
		b.drawn = len(line)
		if final {
			fmt.Fprintln(b.w)
		}
	} else {
		fmt.Fprintln(b.w, line)
	}
	b.lastAt, b.lastDone = now, b.done
}

// line is one report: "label: 300/1000 (30%), 12s" or, without a total,
// "label: 300, 12s"; the final one says "done in".
func (b *Bar) line(now time.Time, final bool) string {
	took := now.Sub(b.start).Round(time.Second)
	count := fmt.Sprint(b.done)
	if b.total > 0 {
		count = fmt.Sprintf("%d/%d (%d%%)", b.done, b.total, b.done*100/b.total)
	}
	if final {
		return fmt.Sprintf("%s: %s, done in %s", b.label, count, took)
	}
	return fmt.Sprintf("%s: %s, %s", b.label, count, took)
}
