package amem_test

import (
	"errors"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

func TestParseAge(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, true}, {"0", 0, true}, {"90d", 90 * 24 * time.Hour, true}, {"2160h", 2160 * time.Hour, true},
		{"36h30m", 36*time.Hour + 30*time.Minute, true}, {"1d", 24 * time.Hour, true},
		{"-1d", 0, false}, {"d", 0, false}, {"1.5d", 0, false}, {"90 days", 0, false}, {"soon", 0, false},
		{"999999999999d", 0, false},
	} {
		got, err := amem.ParseAge(c.in)
		if c.ok && (err != nil || got != c.want) {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if !c.ok && !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("ParseAge(%q) = %v, %v; want ErrInvalid", c.in, got, err)
		}
	}
}

// FuzzParseAge: any text is an age or ErrInvalid, never a panic, and an
// age accepted and valid is written back to the same duration.
func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"90d", "2160h", "0", "", "-5m", "1e9d", "99999999999999999999d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := amem.ParseAge(s)
		if err != nil {
			if !errors.Is(err, amem.ErrInvalid) {
				t.Fatalf("ParseAge(%q): %v is not ErrInvalid", s, err)
			}
			return
		}
		if amem.ValidRetention(amem.Retention{MaxAge: d}) != nil || d == 0 {
			return
		}
		back, err := amem.ParseAge(amem.FormatAge(d))
		if err != nil || back != d {
			t.Fatalf("ParseAge(FormatAge(%v)) = %v, %v", d, back, err)
		}
	})
}

func TestRetentionDue(t *testing.T) {
	for _, c := range []struct {
		r           amem.Retention
		total, past int
		want        int
	}{
		{amem.Retention{}, 10, 10, 0},
		{amem.Retention{MaxNotes: 3}, 10, 0, 7},
		{amem.Retention{MaxNotes: 30}, 10, 10, 0},
		{amem.Retention{MaxAge: time.Hour}, 10, 4, 4},
		{amem.Retention{MaxAge: time.Hour, MaxNotes: 8}, 10, 4, 4},
		{amem.Retention{MaxAge: time.Hour, MaxNotes: 3}, 10, 4, 7},
	} {
		if got := c.r.Due(c.total, c.past); got != c.want {
			t.Errorf("%+v.Due(%d, %d) = %d, want %d", c.r, c.total, c.past, got, c.want)
		}
	}
}
