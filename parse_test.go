package amem_test

import (
	"errors"
	"maps"
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
