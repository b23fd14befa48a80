// Package progress reports how far a long job has got, on a stream meant
// for people (stderr). On a terminal it draws a bar that redraws in place
// (schollz/progressbar, a maintained library: widths, rates and time
// left are its trade, not ours); on a file or a pipe, where a redrawn line
// would run together into one long log line, it writes whole lines, and
// few of them: one per tenth of the job or per Every, whichever comes
// first. Either way the job ends with one whole line saying what was done
// and how long it took, which stays in the scrollback and in the log.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Options configure a Bar. The zero value detects the terminal.
type Options struct {
	// Terminal forces the redrawn bar (Yes) or whole lines (No); Auto
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

// redrawEvery bounds how often the terminal bar is redrawn: faster is
// flicker, and writes that slow the job down.
const redrawEvery = 100 * time.Millisecond

// Bar counts done units of a job of total units (total <= 0: unknown)
// and reports them to w. It is safe for concurrent use. A nil *Bar
// reports nothing, so that a job too small for one needs no other path.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	total    int
	done     int
	term     *progressbar.ProgressBar // the terminal's bar; nil in a log
	every    time.Duration
	now      func() time.Time
	start    time.Time
	lastAt   time.Time // when the last report was written
	lastDone int       // done at the last report
	finished bool
	// waiting: a wait of unknown size (Elapsed); lines say only the time.
	waiting bool
}

// New starts a bar for a job called label (such as "importing notes").
func New(w io.Writer, label string, total int, opts Options) *Bar {
	if opts.Every <= 0 {
		opts.Every = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	now := opts.Now()
	b := &Bar{w: w, label: label, total: total, every: opts.Every, now: opts.Now, start: now, lastAt: now}
	if opts.Terminal == Yes || (opts.Terminal == Auto && IsTerminal(w)) {
		b.term = terminalBar(w, label, total)
	}
	return b
}

// terminalBar is the library's bar for a job of total units (<= 0:
// unknown, a spinner with the count). The spinner turns on Add only: its
// own ticking goroutine would outlive a job that stops without Done.
func terminalBar(w io.Writer, label string, total int) *progressbar.ProgressBar {
	if total <= 0 {
		total = -1
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(total > 0),
		progressbar.OptionThrottle(redrawEvery),
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionSetWidth(30),
	)
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
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.done += n
	if b.term != nil {
		_ = b.term.Add(n) // a terminal write that fails loses only a redraw
		return
	}
	now := b.now()
	if b.due(now) {
		b.report(now)
	}
}

// Done writes the last report, a whole line with the time the job took,
// in place of the terminal bar. Later calls of Done or Stop do nothing.
func (b *Bar) Done() { b.finish(" done in ") }

// Stop ends the report of a job that failed or was cancelled: its line
// says where the job stopped, not that it is done, so that the error
// printed after it starts on a line of its own. A caller defers Stop and
// calls Done on success; Stop after Done does nothing.
func (b *Bar) Stop() { b.finish(" stopped after ") }

func (b *Bar) finish(how string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.term != nil {
		_ = b.term.Clear()
		_ = b.term.Exit()
	}
	fmt.Fprintln(b.w, b.line(b.now(), how))
}

// due says whether a log line is owed at now.
func (b *Bar) due(now time.Time) bool {
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

func (b *Bar) report(now time.Time) {
	fmt.Fprintln(b.w, b.line(now, ""))
	b.lastAt, b.lastDone = now, b.done
}

// line is one report: "label: 300/1000 (30%), 12s" or, without a total,
// "label: 300, 12s"; a wait (Elapsed) has no count: "label: 12s". The
// final one puts its ending (" done in ", " stopped after ") before the
// time.
func (b *Bar) line(now time.Time, ending string) string {
	if ending == "" {
		ending = " "
	}
	took := now.Sub(b.start).Round(time.Second).String()
	if b.waiting {
		return b.label + ":" + ending + took
	}
	count := fmt.Sprint(b.done)
	if b.total > 0 {
		count = fmt.Sprintf("%d/%d (%d%%)", b.done, b.total, b.done*100/b.total)
	}
	return b.label + ": " + count + "," + ending + took
}
