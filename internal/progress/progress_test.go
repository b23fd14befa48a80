package progress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clock is a fake time that moves only when told.
type clock struct{ t time.Time }

func (c *clock) now() time.Time       { return c.t }
func (c *clock) tick(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                { return &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func lines(s string) []string         { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
func opts(c *clock, m Mode) Options   { return Options{Terminal: m, Now: c.now} }
func hasCR(s string) bool             { return strings.Contains(s, "\r") }
func logBar(c *clock, total int) (*Bar, *strings.Builder) {
	var w strings.Builder
	return New(&w, "importing", total, opts(c, No)), &w
}

// TestLogFastJobTenLines: a fast job in a log is at most a line per tenth
// and the final line, each a whole line; 100% is said once, by Done.
func TestLogFastJobTenLines(t *testing.T) {
	c := newClock()
	b, w := logBar(c, 1000)
	for range 1000 {
		c.tick(time.Millisecond)
		b.Add(1)
	}
	b.Done()
	got := lines(w.String())
	if len(got) != 10 || hasCR(w.String()) {
		t.Fatalf("%d lines, want one a tenth up to 90%% and the final one:\n%s", len(got), w)
	}
	if got[0] != "importing: 100/1000 (10%), 0s" || got[9] != "importing: 1000/1000 (100%), done in 1s" {
		t.Fatalf("lines:\n%s", w)
	}
}

// TestLogSlowJobEveryFewSeconds: a slow job gets a line every Every (5s)
// while it moves, and none while it does not.
func TestLogSlowJobEveryFewSeconds(t *testing.T) {
	c := newClock()
	b, w := logBar(c, 1000)
	for range 10 { // 30 s, 10 units: far from a tenth
		c.tick(3 * time.Second)
		b.Add(1)
	}
	if got := lines(w.String()); len(got) != 5 || got[0] != "importing: 2/1000 (0%), 6s" {
		t.Fatalf("30 s of a slow job: %q; want a line per 5-6 s", got)
	}
	before := w.Len()
	c.tick(time.Minute)
	b.Add(0)
	if w.Len() != before {
		t.Fatalf("a line without progress: %q", w.String()[before:])
	}
}

// TestTerminalBar: on a terminal the library's bar redraws in place
// (carriage returns, no newline while it runs), nothing is written after
// Done, and Done leaves one whole line in its place.
func TestTerminalBar(t *testing.T) {
	for _, tc := range []struct {
		total int
		final string
	}{
		{50, "embedding: 50/50 (100%), done in 0s\n"},
		{0, "embedding: 50, done in 0s\n"}, // unknown total: a spinner
	} {
		c := newClock()
		var w strings.Builder
		b := New(&w, "embedding", tc.total, opts(c, Yes))
		for range 50 {
			b.Add(1)
		}
		running := w.String()
		if !hasCR(running) || strings.Contains(running, "\n") || !strings.Contains(running, "embedding") {
			t.Fatalf("total %d: the running bar %q is not one line redrawn in place", tc.total, running)
		}
		b.Done()
		b.Done()
		b.Add(5) // after Done: nothing
		out := w.String()
		if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\r"+tc.final) {
			t.Fatalf("total %d: terminal output ends %q, want the bar cleared and %q", tc.total, out[len(running):], tc.final)
		}
	}
}

// TestStopSaysWhereTheJobStopped: a failed job's line is not a done one,
// and Stop after Done adds nothing.
func TestStopSaysWhereTheJobStopped(t *testing.T) {
	c := newClock()
	b, w := logBar(c, 1000)
	c.tick(2 * time.Second)
	b.Add(30)
	b.Stop()
	b.Done()
	if got := w.String(); got != "importing: 30/1000 (3%), stopped after 2s\n" {
		t.Fatalf("log %q", got)
	}
	b, w = logBar(c, 10)
	b.Add(10)
	b.Done()
	b.Stop()
	if got := w.String(); got != "importing: 10/10 (100%), done in 0s\n" {
		t.Fatalf("log %q", got)
	}
}

func TestNilBarReportsNothing(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Done() // no panic, nowhere to write
	b.Stop()
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(&strings.Builder{}) {
		t.Fatal("a file or a buffer taken for a terminal")
	}
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer pw.Close()
	if IsTerminal(pw) {
		t.Fatal("a pipe taken for a terminal")
	}
}

// TestElapsedInALog: a wait of unknown size writes a whole line every
// Every while it lasts, and one saying it is done when stopped.
func TestElapsedInALog(t *testing.T) {
	var w strings.Builder
	stop := Elapsed(&w, "fetching", Options{Terminal: No, Every: 20 * time.Millisecond})
	time.Sleep(110 * time.Millisecond)
	stop()
	stop()
	got := lines(w.String())
	if len(got) < 3 || hasCR(w.String()) || got[0] != "fetching: 0s" || got[len(got)-1] != "fetching: done in 0s" {
		t.Fatalf("lines %q: want a line per 20 ms, then the done line", got)
	}
}

// TestElapsedOnATerminal: the spinner redraws in place, and stop leaves
// one whole line.
func TestElapsedOnATerminal(t *testing.T) {
	var w strings.Builder
	stop := Elapsed(&w, "fetching", Options{Terminal: Yes})
	time.Sleep(250 * time.Millisecond)
	stop()
	out := w.String()
	if strings.Count(out, "\r") < 2 || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\rfetching: done in 0s\n") {
		t.Fatalf("terminal output %q", out)
	}
}
