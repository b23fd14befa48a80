package sqlstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/amem-dev/amem"
)

// Encodings shared by both stores:
//
//   - times are int64 unix nanoseconds, read back as UTC; the zero time is
//     NULL, so that every representable time, the Unix epoch included,
//     round-trips exactly. Times outside int64 nanoseconds (before 1677 or
//     after 2262) are rejected with amem.ErrInvalid.
//   - embeddings are bytes of little-endian float32s; nil or empty is NULL.
//   - metadata is a JSON object, "{}" when empty.

// MinTime and MaxTime bound the times that fit int64 unix nanoseconds.
var (
	MinTime = time.Unix(0, math.MinInt64).UTC()
	MaxTime = time.Unix(0, math.MaxInt64).UTC()
)

// UnixNanos encodes t for a nullable integer column: ok is false for the
// zero time, which is stored as NULL.
func UnixNanos(t time.Time) (ns int64, ok bool, err error) {
	if t.IsZero() {
		return 0, false, nil
	}
	if t.Before(MinTime) || t.After(MaxTime) {
		return 0, false, fmt.Errorf("%w: time %s is outside the range %d..%d", amem.ErrInvalid,
			t.Format(time.RFC3339), MinTime.Year(), MaxTime.Year())
	}
	return t.UnixNano(), true, nil
}

// Time decodes a nullable integer column written from UnixNanos; valid
// is false for NULL.
func Time(ns int64, valid bool) time.Time {
	if !valid {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// EncodeVector returns v as little-endian float32s, nil for an empty
// vector.
func EncodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector decodes b into dst's backing array when it is large
// enough, and returns the vector. A length that is not a multiple of 4
// is an error.
func DecodeVector(dst []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding of %d bytes is not a float32 vector", len(b))
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

// MarshalJSON encodes v without escaping <, > and &, so that the stored
// text is the text the caller wrote.
func MarshalJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// EncodeMetadata encodes a map as a JSON object, "{}" when empty. (JSON
// can't fail to encode strings: invalid UTF-8 becomes U+FFFD.)
func EncodeMetadata(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	out, _ := MarshalJSON(m)
	return out
}

// DecodeMetadata decodes a JSON object, as text or as the bytes a driver
// returns; empty text or an empty object is nil.
func DecodeMetadata[T ~string | ~[]byte](s T) (map[string]string, error) {
	if len(s) == 0 || string(s) == "{}" {
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

// TagKeys returns the tags as filters compare them: lowercased (Unicode,
// strings.ToLower, which database collations match only sometimes, so the
// stores keep the keys in a column of their own), without duplicates, in
// the order given.
func TagKeys(tags []string) []string {
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
