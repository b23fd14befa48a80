package sqlite

import (
	"database/sql"
	"encoding/json"
	"time"

	"github.com/amem-dev/amem/internal/sqlstore"
)

// Encodings of Go values in columns, package sqlstore's (shared with
// package postgres, so that both stores hold and return the same values)
// in SQLite's types:
//
//   - times are INTEGER unix nanoseconds, read back as UTC; the zero time is
//     NULL. Times outside int64 nanoseconds (before 1677 or after 2262) are
//     rejected with amem.ErrInvalid.
//   - embeddings are BLOBs of little-endian float32s; nil or empty is NULL.
//   - string lists and maps are JSON text, "[]" and "{}" when empty.

// timeValue encodes t for a nullable INTEGER column.
func timeValue(t time.Time) (any, error) {
	ns, ok, err := sqlstore.UnixNanos(t)
	if !ok {
		return nil, err
	}
	return ns, nil
}

// timeOf decodes a nullable INTEGER column written by timeValue.
func timeOf(v sql.NullInt64) time.Time { return sqlstore.Time(v.Int64, v.Valid) }

// encodeStrings encodes a list as a JSON array, "[]" when empty. (JSON
// can't fail to encode strings: invalid UTF-8 becomes U+FFFD.)
func encodeStrings(s []string) string {
	if len(s) == 0 {
		return "[]"
	}
	out, _ := sqlstore.MarshalJSON(s)
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
