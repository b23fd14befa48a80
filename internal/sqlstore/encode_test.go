package sqlstore

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestVectorRoundTrip(t *testing.T) {
	for _, v := range [][]float32{
		{1}, {0, -0, 1.5, -2.25}, {math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Inf(1))},
	} {
		b := EncodeVector(v)
		if len(b) != 4*len(v) {
			t.Fatalf("EncodeVector(%v) is %d bytes", v, len(b))
		}
		got, err := DecodeVector(nil, b)
		if err != nil || !slices.Equal(got, v) {
			t.Errorf("round trip of %v: %v, %v", v, got, err)
		}
	}
	if b := EncodeVector(nil); b != nil {
		t.Errorf("EncodeVector(nil) = %v, want nil", b)
	}
	// Little-endian, as documented.
	if b := EncodeVector([]float32{1}); string(b) != "\x00\x00\x80\x3f" {
		t.Errorf("EncodeVector([1]) = % x", b)
	}
}

func FuzzDecodeVector(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0x80, 0x3f})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		buf := make([]float32, 2)
		v, err := DecodeVector(buf, b)
		if len(b)%4 != 0 {
			if err == nil {
				t.Fatalf("%d bytes decoded without error", len(b))
			}
			return
		}
		if err != nil || len(v) != len(b)/4 {
			t.Fatalf("decode of %d bytes: %d floats, %v", len(b), len(v), err)
		}
		if back := EncodeVector(v); len(b) > 0 && string(back) != string(b) {
			t.Fatalf("re-encoding differs: % x, want % x", back, b)
		}
	})
}

func TestUnixNanos(t *testing.T) {
	for _, tm := range []time.Time{
		{}, time.Unix(0, 0), time.Unix(0, -1), MinTime.Add(1), MaxTime, time.Date(2024, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)),
	} {
		ns, ok, err := UnixNanos(tm)
		if err != nil {
			t.Fatalf("UnixNanos(%v): %v", tm, err)
		}
		if ok == tm.IsZero() {
			t.Errorf("UnixNanos(%v): ok = %v", tm, ok)
		}
		got := Time(ns, ok)
		if !got.Equal(tm) || (!tm.IsZero() && got.Location() != time.UTC) || (tm.IsZero() && !got.IsZero()) {
			t.Errorf("round trip of %v: %v", tm, got)
		}
	}
	for _, tm := range []time.Time{time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, _, err := UnixNanos(tm); err == nil {
			t.Errorf("UnixNanos(%v) accepted a time out of range", tm)
		}
	}
}

func TestMetadata(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]string
		want string
	}{
		{nil, "{}"}, {map[string]string{}, "{}"}, {map[string]string{"a<b>": "&c", "ü": ""}, `{"a<b>":"&c","ü":""}`},
	} {
		got := EncodeMetadata(tc.in)
		if got != tc.want {
			t.Errorf("EncodeMetadata(%q) = %s, want %s", tc.in, got, tc.want)
		}
		back, err := DecodeMetadata([]byte(got))
		if err != nil || len(back) != len(tc.in) || (len(tc.in) == 0) != (back == nil) {
			t.Errorf("DecodeMetadata(%s) = %#v, %v", got, back, err)
		}
	}
	for _, s := range []string{"", "{}", "null"} {
		if m, err := DecodeMetadata(s); m != nil || err != nil {
			t.Errorf("DecodeMetadata(%q) = %#v, %v; want nil", s, m, err)
		}
	}
}

func TestTagKeys(t *testing.T) {
	if got := TagKeys([]string{"Work", "WORK", "Ärger", "home"}); !slices.Equal(got, []string{"work", "ärger", "home"}) {
		t.Errorf("TagKeys = %q", got)
	}
	if got := TagKeys(nil); got == nil || len(got) != 0 {
		t.Errorf("TagKeys(nil) = %#v, want empty, not nil", got)
	}
}
