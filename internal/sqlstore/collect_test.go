package sqlstore

import (
	"errors"
	"testing"
)

// Collect gives an empty list, never nil, for no rows; the scan's error
// and then the driver's (Err) stop it.
func TestCollect(t *testing.T) {
	scan := func(s Scanner) (string, error) {
		var v string
		err := s.Scan(&v)
		return v, err
	}
	if got, err := Collect(&fakeRows{}, scan); err != nil || got == nil || len(got) != 0 {
		t.Errorf("no rows: %#v, %v; want an empty list", got, err)
	}
	got, err := Collect(&fakeRows{rows: [][]any{{"a"}, {"b"}}}, scan)
	if err != nil || len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("two rows: %q, %v", got, err)
	}
	boom := errors.New("boom")
	if got, err := Collect(&fakeRows{rows: [][]any{{"a"}}, err: boom}, scan); !errors.Is(err, boom) || got != nil {
		t.Errorf("driver error: %q, %v; want nil and the error", got, err)
	}
	bad := func(Scanner) (string, error) { return "", boom }
	if _, err := Collect(&fakeRows{rows: [][]any{{"a"}}}, bad); !errors.Is(err, boom) {
		t.Errorf("scan error: %v", err)
	}
}

// A NULL time column (a nil *int64) is the zero time.
func TestTimeOfNull(t *testing.T) {
	if got := timeOf(nil); !got.IsZero() {
		t.Errorf("timeOf(nil) = %v", got)
	}
	ns := int64(1_700_000_000_123_456_789)
	if got := timeOf(&ns); got.UnixNano() != ns || got.Location().String() != "UTC" {
		t.Errorf("timeOf(%d) = %v", ns, got)
	}
}
