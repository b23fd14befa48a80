package postgres

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/amem-dev/amem"
)

// Encodings of Go values in columns, the same as package sqlite's so that
// both stores hold and return exactly the same values:
//
//   - times are bigint unix nanoseconds, read back as UTC; the zero time is
//     NULL. timestamptz keeps microseconds only, and the store must give
//     back the nanoseconds it was given. Times outside int64 nanoseconds
//     (before 1677 or after 2262) are amem.ErrInvalid.
//   - embeddings are bytea of little-endian float32s; nil or empty is NULL.
//   - keywords, tags and their lowercased keys are text[], '{}' when empty;
//     metadata is jsonb, '{}' when empty, so that filters test pairs with
//     one containment (@>).
//   - PostgreSQL text can't hold NUL bytes; a string with one is
//     amem.ErrInvalid before it reaches the server, which would fail the
//     statement and with it the transaction.

var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

// timeValue encodes t for a nullable bigint column.
func timeValue(t time.Time) (*int64, error) {
	if t.IsZero() {
		return nil, nil
	}
	if t.Before(minTime) || t.After(maxTime) {
		return nil, fmt.Errorf("%w: time %s is outside the range %d..%d", amem.ErrInvalid,
			t.Format(time.RFC3339), minTime.Year(), maxTime.Year())
	}
	ns := t.UnixNano()
	return &ns, nil
}

// timeOf decodes a nullable bigint column written by timeValue.
func timeOf(v pgtype.Int8) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.Unix(0, v.Int64).UTC()
}

// encodeVector returns v as little-endian float32s, nil for an empty
// vector.
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

// decodeVector decodes b into dst's backing array when it is large enough.
func decodeVector(dst []float32, b []byte) ([]float32, error) {
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

// stringsValue is s for a text[] column, never NULL.
func stringsValue(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// strings is a scanned text[], never nil.
func stringsOf(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// metadataValue encodes m as JSON text for a jsonb column ("{}" when
// empty); pgx sends a string to jsonb as it is.
func metadataValue(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	out, _ := marshalJSON(m) // strings always encode
	return out
}

// metadataOf decodes a jsonb column; an empty object is nil.
func metadataOf(b []byte) (map[string]string, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// tagKeys returns the tags as filters compare them: lowercased (Unicode,
// strings.ToLower, which PostgreSQL's lower() matches only under some
// collations), without duplicates, in the order given.
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

// checkText is amem.ErrInvalid if any of the strings holds a NUL byte,
// which PostgreSQL text refuses.
func checkText(field string, ss ...string) error {
	for _, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("%w: %s holds a NUL byte, which PostgreSQL text cannot store", amem.ErrInvalid, field)
		}
	}
	return nil
}

// checkNoteText is checkText over every text field of n.
func checkNoteText(n amem.Note) error {
	if err := checkText("content", n.Content); err != nil {
		return err
	}
	if err := checkText("context", n.Context, n.Enrichment.Error); err != nil {
		return err
	}
	if err := checkText("keywords", n.Keywords...); err != nil {
		return err
	}
	if err := checkText("tags", n.Tags...); err != nil {
		return err
	}
	for k, v := range n.Metadata {
		if err := checkText("metadata", k, v); err != nil {
			return err
		}
	}
	return nil
}
