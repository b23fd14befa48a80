// Package jsonin reads JSON that clients send: the REST API's bodies,
// MCP tool arguments and import lines. It refuses what encoding/json
// would accept by rewriting it (bytes that are not UTF-8 and escapes of
// lone UTF-16 surrogates both become U+FFFD), so that bad input is an
// error instead of a silently different note, and it words decoding
// errors for the person who sent the JSON, not in Go's terms.
//
// Errors are plain errors; callers wrap them in their own sentinel
// (amem.ErrInvalid), which this package cannot import.
package jsonin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Check reports the first text in data that a JSON decoder would replace
// with U+FFFD: a byte sequence that is not UTF-8, or a \u escape of half a
// surrogate pair without its other half. subject names data in the
// message ("body", "line 3"). Positions are 1-based byte offsets.
func Check(data []byte, subject string) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%s is not valid UTF-8 at byte %d; send text as UTF-8", subject, invalidUTF8At(data)+1)
	}
	if at, esc := loneSurrogate(data); at >= 0 {
		return fmt.Errorf("%s has %s at byte %d, half of a UTF-16 surrogate pair, which is not a character; send the whole pair or the character itself", subject, esc, at+1)
	}
	return nil
}

func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// loneSurrogate finds a \uXXXX escape inside a JSON string that is a high
// surrogate not followed by an escaped low one, or a low surrogate not
// preceded by a high one. It returns its offset and text, or -1. Malformed
// escapes are left to the decoder, which reports them as syntax errors.
func loneSurrogate(data []byte) (int, string) {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 >= len(data) || data[i+1] != 'u' {
				i++ // a one-character escape such as \" or \\
				continue
			}
			r, ok := hex4(data, i+2)
			if !ok {
				continue
			}
			if !utf16.IsSurrogate(r) {
				i += 5
				continue
			}
			if r >= 0xDC00 { // a low half with no high half before it
				return i, string(data[i : i+6])
			}
			if i+12 > len(data) || data[i+6] != '\\' || data[i+7] != 'u' {
				return i, string(data[i : i+6])
			}
			if lo, ok := hex4(data, i+8); !ok || lo < 0xDC00 || lo > 0xDFFF {
				return i, string(data[i : i+6])
			}
			i += 11
		}
	}
	return -1, ""
}

// hex4 reads four hex digits at data[at:].
func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(data[at:at+4]), 16, 16)
	return rune(v), err == nil
}

// Decode decodes data, which must hold exactly one JSON object, into v,
// strictly: text Check refuses, unknown fields and anything after the
// object are errors. subject names data in messages ("body", "line 3").
// A JSON null is accepted and leaves v as it is.
func Decode(data []byte, v any, subject string) error {
	if err := Check(data, subject); err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s is empty; send a JSON object", subject)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, subject, reflect.TypeOf(v))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s must hold one JSON object and nothing after it", subject)
	}
	return nil
}

// decodeError words an encoding/json error for the sender; t is the type
// decoded into.
func decodeError(err error, subject string, t reflect.Type) error {
	var (
		se *json.SyntaxError
		te *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s is not valid JSON at byte %d: %s", subject, se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s is not valid JSON: it ends before the object is closed", subject)
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf("%s must be a JSON object, not %s", subject, valueWords(te.Value))
	case errors.As(err, &te):
		return fmt.Errorf("field %q: must be %s, not %s", jsonPath(te.Field, t), typeWords(te.Type), valueWords(te.Value))
	}
	var pe *time.ParseError
	if errors.As(err, &pe) { // a time.Time field (Time says more)
		return fmt.Errorf("%s has the time %q, which is not an RFC 3339 time such as %s", subject, clip(pe.Value, 40), exampleTime)
	}
	if strings.HasPrefix(err.Error(), "Time.UnmarshalJSON") {
		return fmt.Errorf("%s has a time that is not a string; times are RFC 3339 strings such as %s", subject, exampleTime)
	}
	// The decoder's remaining complaints (an unknown field, above all)
	// name the field; only its package prefix is Go's.
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.HasPrefix(msg, "unknown field ") {
		return errors.New(msg)
	}
	return fmt.Errorf("%s: %s", subject, msg)
}

// jsonPath drops from the decoder's field path ("Record.Note.content")
// the names of embedded structs, which the sender never wrote.
func jsonPath(field string, t reflect.Type) string {
	embedded := make(map[string]bool)
	embeddedNames(t, embedded, make(map[reflect.Type]bool))
	parts := strings.Split(field, ".")
	kept := parts[:0]
	for _, p := range parts {
		if !embedded[p] {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}

func embeddedNames(t reflect.Type, names map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for f := range t.Fields() {
		if f.Anonymous {
			names[f.Name] = true
		}
		embeddedNames(f.Type, names, seen)
	}
}

// typeWords says what a Go type holds, as JSON.
func typeWords(t reflect.Type) string {
	if t == reflect.TypeFor[Time]() {
		return "an RFC 3339 time such as " + exampleTime
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeWords(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	case reflect.Map:
		if t.Elem().Kind() == reflect.String {
			return "an object of strings"
		}
		return "an object"
	case reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}

// valueWords says what JSON value the decoder found, from
// UnmarshalTypeError.Value ("string", "number 1.5", "array", ...) or, for
// Time, the text it was given.
func valueWords(v string) string {
	kind, detail, _ := strings.Cut(v, " ")
	switch kind {
	case "string":
		return "a string"
	case "number":
		if detail != "" {
			return detail
		}
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return v
}

const exampleTime = "2024-05-01T10:00:00Z"

// Time is a time.Time field of client input whose decoding errors name
// the field and the format wanted (time.Time's name neither). Use *Time
// for an optional field: absent and null leave it nil.
type Time struct{ time.Time }

// UnmarshalJSON accepts what time.Time does: an RFC 3339 string.
func (t *Time) UnmarshalJSON(b []byte) error {
	if err := t.Time.UnmarshalJSON(b); err != nil {
		// An UnmarshalTypeError is the one error the decoder extends with
		// the field's name.
		return &json.UnmarshalTypeError{Value: rawWords(b), Type: reflect.TypeFor[Time]()}
	}
	return nil
}

// rawWords says what a JSON value is: a string is quoted (clipped), other
// values are named by kind.
func rawWords(b []byte) string {
	switch b[0] {
	case '"':
		if s, err := strconv.Unquote(string(b)); err == nil {
			return strconv.Quote(clip(s, 40))
		}
		return "a string"
	case '[':
		return "a list"
	case '{':
		return "an object"
	case 't', 'f':
		return "true or false"
	}
	return "a number"
}

// clip shortens s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
