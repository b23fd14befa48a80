package amem_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

func TestParseTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2024-05-01":                time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC),
		"2024-05-01T13:56:00Z":      time.Date(2024, 5, 1, 13, 56, 0, 0, time.UTC),
		"2024-05-01T13:56:00.5Z":    time.Date(2024, 5, 1, 13, 56, 0, 5e8, time.UTC),
		"2024-05-01T15:56:00+02:00": time.Date(2024, 5, 1, 13, 56, 0, 0, time.UTC),
	} {
		got, err := amem.ParseTime(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yesterday", "2024-5-1", "2024-05-01 13:56", "2024-05-01T13:56:00", "2024-13-01", "1714521600"} {
		if got, err := amem.ParseTime(in); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("ParseTime(%q) = %v, %v; want ErrInvalid", in, got, err)
		}
	}
}

func TestParseMetadata(t *testing.T) {
	got, err := amem.ParseMetadata([]string{"source=chat", "empty=", "eq=a=b"})
	if want := map[string]string{"source": "chat", "empty": "", "eq": "a=b"}; err != nil || !maps.Equal(got, want) {
		t.Errorf("ParseMetadata = %v, %v; want %v", got, err, want)
	}
	if got, err := amem.ParseMetadata(nil); got != nil || err != nil {
		t.Errorf("ParseMetadata(nil) = %v, %v", got, err)
	}
	for _, in := range [][]string{{"novalue"}, {"=v"}, {""}, {"a=1", "a=2"}} {
		if got, err := amem.ParseMetadata(in); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("ParseMetadata(%q) = %v, %v; want ErrInvalid", in, got, err)
		}
	}
}

func TestParseFilter(t *testing.T) {
	f, err := amem.ParseFilter("2024-05-01", "2024-05-02T12:00:00+02:00", []string{"Work"}, []string{"src=chat"})
	want := amem.Filter{From: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC),
		Tags: []string{"Work"}, Metadata: map[string]string{"src": "chat"}}
	if err != nil || !f.From.Equal(want.From) || !f.To.Equal(want.To) || !slices.Equal(f.Tags, want.Tags) || !maps.Equal(f.Metadata, want.Metadata) {
		t.Errorf("ParseFilter = %+v, %v; want %+v", f, err, want)
	}
	if f, err := amem.ParseFilter("", "", nil, nil); err != nil || !f.IsZero() {
		t.Errorf("ParseFilter of nothing = %+v, %v; want the zero filter", f, err)
	}
	for _, c := range []struct {
		from, to string
		pairs    []string
		prefix   string
	}{
		{"yesterday", "", nil, "from: "},
		{"", "2024-05-01 10:00", nil, "to: "},
		{"", "", []string{"src"}, "meta: "},
		// The zero time is the filter's "no bound": to=0001-01-01 used to
		// make a filter that matches nothing match everything.
		{"", "0001-01-01", nil, "to: "},
		{"0001-01-01T00:00:00Z", "", nil, "from: "},
	} {
		_, err := amem.ParseFilter(c.from, c.to, nil, c.pairs)
		if !errors.Is(err, amem.ErrInvalid) || !strings.HasPrefix(err.Error(), c.prefix) {
			t.Errorf("ParseFilter(%q, %q, %q) = %v; want ErrInvalid starting %q", c.from, c.to, c.pairs, err, c.prefix)
		}
	}
}
