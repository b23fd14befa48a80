package repeatlog

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A failure repeated every second for ten minutes is logged 11 times (the
// start, then once a minute with the count left out), and its end once.
func TestRepeatsLoggedOncePerMinute(t *testing.T) {
	var buf bytes.Buffer
	l := &Log{Logger: slog.New(slog.NewTextHandler(&buf, nil)), Msg: "claim due notes"}
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	l.OK(t0) // nothing to end
	boom := errors.New("attempt to write a readonly database")
	for s := range 600 {
		l.Fail(t0.Add(time.Duration(s)*time.Second), boom)
	}
	l.OK(t0.Add(600 * time.Second))
	l.OK(t0.Add(601 * time.Second))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 10 warnings and 1 recovery:\n%s", len(lines), buf.String())
	}
	if !strings.Contains(lines[1], "repeats_not_logged=59") || !strings.Contains(lines[10], "working again") || !strings.Contains(lines[10], "failed_for=10m0s") {
		t.Errorf("lines:\n%s", buf.String())
	}
	l.Fail(t0.Add(700*time.Second), boom) // a new failure logs at once
	if got := strings.Count(buf.String(), "\n"); got != 12 {
		t.Errorf("a new failure after recovery: %d lines, want 12", got)
	}
}
