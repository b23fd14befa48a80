package sqlite

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/amem-dev/amem"
)

// Encodings of Go values in columns:
//
//   - times are INTEGER unix nanoseconds, read back as UTC; the zero time is
//     NULL, so that every representable time, the Unix epoch included,
//     round-trips exactly. Times outside int64 nanoseconds (before 1677 or
//     after 2262) are rejected with amem.ErrInvalid.
//   - embeddings are BLOBs of little-endian float32s; nil or empty is NULL.
//   - string lists and maps are JSON text, "[]" and "{}" when empty.

// minTime and maxTime bound the times that fit int64 unix nanoseconds.
var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

// timeValue encodes t for a nullable INTEGER column.
func timeValue(t time.Time) (any, error) {
	if t.IsZero() {
		return nil, nil
	}
	if t.Before(minTime) || t.After(maxTime) {
		return nil, fmt.Errorf("%w: time %s is outside the range %d..%d", amem.ErrInvalid,
			t.Format(time.RFC3339), minTime.Year(), maxTime.Year())
	}
	return t.UnixNano(), nil
}

// timeOf decodes a nullable INTEGER column written by timeValue.
func timeOf(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.Unix(0, v.Int64).UTC()
}

// encodeVector returns v as little-endian float32s, nil for an empty vector.
func encodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// decodeVector decodes b into dst's backing array when it is large enough,
// and returns the vector. A length that is not a multiple of 4 is an error.
func decodeVector(dst []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding blob of %d bytes is not a float32 vector", len(b))
	}
	n := len(b) / 4
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst, nil
}

// marshalJSON encodes v without escaping <, > and &, so that the stored
// text is the text the caller wrote.
func marshalJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// encodeStrings encodes a list as a JSON array, "[]" when empty. (JSON
// can't fail to encode strings: invalid UTF-8 becomes U+FFFD.)
func encodeStrings(s []string) string {
	if len(s) == 0 {
		return "[]"
	}
	out, _ := marshalJSON(s)
	return out
}

// decodeStrings decodes a JSON array; the result is never nil.
func decodeStrings(s string) ([]string, error) {
	out := []string{}
	if s == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	if out == nil { // the text was "null"
		out = []string{}
	}
	return out, nil
}

// encodeMetadata encodes a map as a JSON object, "{}" when empty.
func encodeMetadata(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	out, _ := marshalJSON(m) // can't fail, as for encodeStrings
	return out
}

// decodeMetadata decodes a JSON object; an empty one is nil.
func decodeMetadata(s string) (map[string]string, error) {
	if s == "" || s == "{}" {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// tagKeys returns the tags as filters compare them: lowercased (Unicode,
// strings.ToLower), without duplicates, in the order given.
func tagKeys(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		k := strings.ToLower(t)
		dup := false
		for _, o := range out {
			if o == k {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, k)
		}
	}
	return out
}
