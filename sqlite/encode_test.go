package sqlite

import (
	"database/sql"
	"math"
	"slices"
	"testing"
	"time"
)

func TestVectorRoundTrip(t *testing.T) {
	for _, v := range [][]float32{
		{1}, {0, -0, 1.5, -2.25}, {math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Inf(1))},
	} {
		b := encodeVector(v)
		if len(b) != 4*len(v) {
			t.Fatalf("encodeVector(%v) is %d bytes", v, len(b))
		}
		got, err := decodeVector(nil, b)
		if err != nil || !slices.Equal(got, v) {
			t.Errorf("round trip of %v: %v, %v", v, got, err)
		}
	}
	if b := encodeVector(nil); b != nil {
		t.Errorf("encodeVector(nil) = %v, want nil", b)
	}
	// Little-endian, as documented.
	if b := encodeVector([]float32{1}); string(b) != "\x00\x00\x80\x3f" {
		t.Errorf("encodeVector([1]) = % x", b)
	}
}

func FuzzDecodeVector(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0x80, 0x3f})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		buf := make([]float32, 2)
		v, err := decodeVector(buf, b)
		if len(b)%4 != 0 {
			if err == nil {
				t.Fatalf("%d bytes decoded without error", len(b))
			}
			return
		}
		if err != nil || len(v) != len(b)/4 {
			t.Fatalf("decode of %d bytes: %d floats, %v", len(b), len(v), err)
		}
		if back := encodeVector(v); len(b) > 0 && string(back) != string(b) {
			t.Fatalf("re-encoding differs: % x, want % x", back, b)
		}
	})
}

func TestTimeValue(t *testing.T) {
	for _, tm := range []time.Time{
		{}, time.Unix(0, 0), time.Unix(0, -1), minTime.Add(1), maxTime, time.Date(2024, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)),
	} {
		v, err := timeValue(tm)
		if err != nil {
			t.Fatalf("timeValue(%v): %v", tm, err)
		}
		var n sql.NullInt64
		if v != nil {
			n = sql.NullInt64{Int64: v.(int64), Valid: true}
		}
		got := timeOf(n)
		if !got.Equal(tm) || (!tm.IsZero() && got.Location() != time.UTC) || (tm.IsZero() && !got.IsZero()) {
			t.Errorf("round trip of %v: %v", tm, got)
		}
	}
	for _, tm := range []time.Time{time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := timeValue(tm); err == nil {
			t.Errorf("timeValue(%v) accepted a time out of range", tm)
		}
	}
}

func TestJSONLists(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, "[]"}, {[]string{}, "[]"}, {[]string{"a<b>&c", "ü"}, `["a<b>&c","ü"]`},
	} {
		got := encodeStrings(tc.in)
		if got != tc.want {
			t.Errorf("encodeStrings(%q) = %s, want %s", tc.in, got, tc.want)
		}
		back, err := decodeStrings(got)
		if err != nil || back == nil || len(back) != len(tc.in) {
			t.Errorf("decodeStrings(%s) = %#v, %v", got, back, err)
		}
	}
	for _, s := range []string{"", "null", "[]"} {
		if got, err := decodeStrings(s); err != nil || got == nil || len(got) != 0 {
			t.Errorf("decodeStrings(%q) = %#v, %v; want empty, not nil", s, got, err)
		}
	}
	if m, err := decodeMetadata("{}"); m != nil || err != nil {
		t.Errorf("decodeMetadata({}) = %#v, %v; want nil", m, err)
	}
	if got := tagKeys([]string{"Work", "WORK", "Ärger", "home"}); !slices.Equal(got, []string{"work", "ärger", "home"}) {
		t.Errorf("tagKeys = %q", got)
	}
}
