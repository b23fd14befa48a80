package sqlite

import (
	"database/sql"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

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
	if out, ok := decodePlainStrings(s); ok {
		return out, nil
	}
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

// decodePlainStrings decodes, without encoding/json, the arrays
// encodeStrings writes whose strings need no escapes (almost all
// keywords and tags): compact, quoted, valid UTF-8, no backslash or
// control character. Anything else reports false for json.Unmarshal to
// decode. Keywords, tags and curator keys are three decodes a note read,
// and encoding/json's were a tenth of a search's time at 1M notes.
func decodePlainStrings(s string) ([]string, bool) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' || strings.IndexByte(s, '\\') >= 0 {
		return nil, false
	}
	body := s[1 : len(s)-1]
	out := make([]string, 0, strings.Count(body, `","`)+1)
	for body != "" {
		if body[0] != '"' {
			return nil, false
		}
		end := strings.IndexByte(body[1:], '"')
		if end < 0 {
			return nil, false
		}
		v := body[1 : 1+end]
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 {
				return nil, false
			}
		}
		if !utf8.ValidString(v) {
			return nil, false
		}
		out = append(out, v)
		body = body[2+end:]
		if body == "" {
			break
		}
		if body[0] != ',' || len(body) == 1 {
			return nil, false
		}
		body = body[1:]
	}
	return out, true
}
