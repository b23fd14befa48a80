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

// TestTerminalRedrawsOneLine: on a terminal every report redraws the line
// (carriage return, padded over a longer one), at most every 100 ms, and
// Done ends it with a newline.
func TestTerminalRedrawsOneLine(t *testing.T) {
	c := newClock()
	var w strings.Builder
	b := New(&w, "embedding", 0, opts(c, Yes))
	for range 50 {
		c.tick(10 * time.Millisecond)
		b.Add(1)
	}
	b.Done()
	b.Done()
	b.Add(5) // after Done: nothing
	out := w.String()
	if n := strings.Count(out, "\r"); n != 6 { // 5 redraws in 500 ms and the final one
		t.Fatalf("%d redraws in %q, want 6", n, out)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\rembedding: 50, done in 1s\n") {
		t.Fatalf("terminal output %q", out)
	}
}

// TestTerminalPadsAShorterLine: a line shorter than the one drawn before
// ("1m59s" then "2m0s") blanks the old line's tail.
func TestTerminalPadsAShorterLine(t *testing.T) {
	c := newClock()
	var w strings.Builder
	b := New(&w, "x", 0, opts(c, Yes))
	c.tick(119 * time.Second)
	b.Add(1)
	c.tick(time.Second)
	b.Add(1)
	if want := "\rx: 1, 1m59s\rx: 2, 2m0s "; w.String() != want {
		t.Fatalf("terminal output %q, want %q", w.String(), want)
	}
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
