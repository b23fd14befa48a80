package sqlite

import (
	"database/sql"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem/internal/sqlstore"
)

func TestTimeValue(t *testing.T) {
	for _, tm := range []time.Time{
		{}, time.Unix(0, 0), time.Unix(0, -1), sqlstore.MinTime.Add(1), sqlstore.MaxTime, time.Date(2024, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)),
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
}

// The fast path agrees with encoding/json on every input it takes, and
// leaves the rest to it.
func TestDecodePlainStrings(t *testing.T) {
	for _, s := range []string{
		`[]`, `["a"]`, `["a","b c","ü東京"]`, `[""]`, `["",""]`,
		`["a\"b"]`, `["a\u003cb"]`, `["a",]`, `[,"a"]`, `["a" ,"b"]`, `[ "a"]`,
		`["a"`, `"a"]`, `[1]`, `["a","b"]x`, `null`, ``, "[\"\x01\"]", "[\"\xff\"]",
		`["a"]]`, `[["a"]]`, `["a""b"]`,
	} {
		got, ok := decodePlainStrings(s)
		var want []string
		err := json.Unmarshal([]byte(s), &want)
		if ok && (err != nil || !slices.Equal(got, want) || got == nil) {
			t.Errorf("decodePlainStrings(%q) = %#v; encoding/json: %#v, %v", s, got, want, err)
		}
		full, ferr := decodeStrings(s)
		if (ferr == nil) != (err == nil || s == "") {
			t.Errorf("decodeStrings(%q) error %v; encoding/json %v", s, ferr, err)
		}
		if ferr == nil && err == nil && want != nil && !slices.Equal(full, want) {
			t.Errorf("decodeStrings(%q) = %#v, want %#v", s, full, want)
		}
	}
	for _, plain := range []string{`[]`, `["a"]`, `["a","b c","ü東京"]`, `["",""]`} {
		if _, ok := decodePlainStrings(plain); !ok {
			t.Errorf("decodePlainStrings(%q) fell back", plain)
		}
	}
}
