package jsonin

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: "" for accepted, else part of the message
	}{
		{`{"content": "café ☕ 😀"}`, ""},
		{`{"content": "\u00e9 \ud83d\ude00 \\ud800"}`, ""}, // a pair, and an escaped backslash
		{`{"content": "\"\ud800"}`, `\ud800 at byte 16`},
		{"{\"content\": \"x\xffy\"}", "not valid UTF-8 at byte 15"},
		{`{"content": "\ud800"}`, `\ud800 at byte 14`},
		{`{"content": "\udc00\ud800"}`, `\udc00`},
		{`{"content": "\ud800\u0041"}`, `\ud800`},
		{`{"content": "\ud800\ud800"}`, `\ud800`},
		{`{"content": "\ud800`, `\ud800`},
		{`{"a\ud800": 1}`, `\ud800`},
	} {
		err := Check([]byte(tc.in), "body")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%q) = %v, want it to mention %q", tc.in, err, tc.want)
		}
	}
}

type input struct {
	Content  string            `json:"content"`
	Time     *Time             `json:"time,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	K        int               `json:"k,omitempty"`
	At       time.Time         `json:"at"`
}

func TestDecodeWordsErrorsForTheSender(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "body is empty"},
		{`[1]`, "body must be a JSON object, not a list"},
		{`"x"`, "body must be a JSON object, not a string"},
		{`{"content": }`, "body is not valid JSON at byte 13: invalid character '}'"},
		{`{"content": "x"`, "body is not valid JSON: it ends before"},
		{`{"content": "x"} {}`, "body must hold one JSON object and nothing after it"},
		{`{"colour": "red"}`, `unknown field "colour"`},
		{`{"content": 5}`, `field "content": must be a string, not a number`},
		{`{"tags": "x"}`, `field "tags": must be a list of strings, not a string`},
		{`{"metadata": []}`, `field "metadata": must be an object of strings, not a list`},
		{`{"k": 1.5}`, `field "k": must be a whole number, not 1.5`},
		{`{"time": "yesterday"}`, `field "time": must be an RFC 3339 time such as 2024-05-01T10:00:00Z, not "yesterday"`},
		{`{"time": 5}`, `field "time": must be an RFC 3339 time such as 2024-05-01T10:00:00Z, not a number`},
		{"{\"content\": \"\xff\"}", "body is not valid UTF-8 at byte 14"},
		{`{"at": "yesterday"}`, `body has the time "yesterday", which is not an RFC 3339 time`},
		{`{"at": 5}`, `body has a time that is not a string`},
	} {
		var v input
		err := Decode([]byte(tc.in), &v, "body")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%q) = %v, want it to contain %q", tc.in, err, tc.want)
			continue
		}
		for _, goish := range []string{"json:", "Go ", "main.", "jsonin.", "UnmarshalJSON", ".go", "[]string", "map["} {
			if strings.Contains(err.Error(), goish) {
				t.Errorf("Decode(%q) = %q: speaks Go (%q)", tc.in, err, goish)
			}
		}
	}
}

func TestDecodeTime(t *testing.T) {
	var v input
	if err := Decode([]byte(`{"content": "x", "time": "2024-05-01T10:00:00+02:00"}`), &v, "body"); err != nil {
		t.Fatal(err)
	}
	if !v.Time.Equal(time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)) {
		t.Fatalf("time = %v", v.Time)
	}
	v = input{}
	if err := Decode([]byte(`{"content": "x", "time": null}`), &v, "body"); err != nil || v.Time != nil {
		t.Fatalf("null time: %v %v, want nil (not given)", v.Time, err)
	}
}

type inner struct {
	Content string `json:"content"`
}

type outer struct {
	inner
	List []struct{ inner } `json:"list"`
}

// TestDecodeFieldPathsAreJSON: embedded structs are not part of the path
// the sender sees.
func TestDecodeFieldPathsAreJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"content": 1}`:             `field "content": must be a string, not a number`,
		`{"list": [{"content": 1}]}`: `field "list.content": must be a string, not a number`,
	} {
		var v outer
		if err := Decode([]byte(in), &v, "body"); err == nil || err.Error() != want {
			t.Errorf("Decode(%s) = %v, want %q", in, err, want)
		}
	}
}

// FuzzCheck: JSON that Check accepts decodes without a U+FFFD the sender
// did not write.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a": "x"}`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `"\\ud800"`, `{"\ud800": 1}`, `"\ufffd"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if Check(data, "body") != nil || json.Unmarshal(data, &v) != nil {
			return
		}
		sent := strings.Contains(string(data), "\uFFFD") || strings.Contains(strings.ToLower(string(data)), `\ufffd`)
		if hasReplacement(v) && !sent {
			t.Fatalf("Check accepted %q, which decodes with U+FFFD", data)
		}
	})
}

func hasReplacement(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ContainsRune(v, utf8.RuneError)
	case []any:
		for _, e := range v {
			if hasReplacement(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range v {
			if strings.ContainsRune(k, utf8.RuneError) || hasReplacement(e) {
				return true
			}
		}
	}
	return false
}
