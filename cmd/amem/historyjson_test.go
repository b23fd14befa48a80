package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryJSONHoldsValues: each change's old and new values are JSON
// values a program reads with one decode: the content a string, the
// keywords a list, the metadata an object.
func TestHistoryJSONHoldsValues(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	id := strings.TrimSpace(mustCLI(t, "", "add", "--db", db, "--keyword", "dog", "--meta", "source=chat", "Alice adopted a dog named Rex"))
	mustCLI(t, "", "restore", "--db", db, id, "1")
	var hist []struct {
		Version int `json:"version"`
		Changes []struct {
			Field string          `json:"field"`
			Old   json.RawMessage `json:"old"`
			New   json.RawMessage `json:"new"`
		} `json:"changes"`
		Snapshot struct {
			Content string `json:"content"`
		} `json:"snapshot"`
	}
	out := mustCLI(t, "", "history", "--db", db, "--json", id)
	if err := json.Unmarshal([]byte(out), &hist); err != nil {
		t.Fatalf("history --json: %v\n%s", err, out)
	}
	if len(hist) < 2 || hist[0].Version != 1 || hist[0].Snapshot.Content != "Alice adopted a dog named Rex" {
		t.Fatalf("history: %s", out)
	}
	seen := map[string]bool{}
	for _, v := range hist {
		for _, c := range v.Changes {
			seen[c.Field] = true
			var want any
			switch c.Field {
			case "content", "context", "event_time":
				want = new(string)
			case "keywords", "tags", "curator_tags", "caller_set":
				want = new([]string)
			case "metadata":
				want = new(map[string]string)
			default:
				t.Fatalf("change of unknown field %q", c.Field)
			}
			for _, raw := range []json.RawMessage{c.Old, c.New} {
				if err := json.Unmarshal(raw, want); err != nil {
					t.Fatalf("v%d %s: %s is not a %T: %v", v.Version, c.Field, raw, want, err)
				}
			}
		}
	}
	if !seen["content"] || !seen["keywords"] || !seen["metadata"] {
		t.Fatalf("history lacks the first version's fields: %v\n%s", seen, out)
	}
	if !strings.Contains(out, `"new": "Alice adopted a dog named Rex"`) {
		t.Fatalf("content is not a plain JSON string:\n%s", out)
	}
}

func TestJSONValue(t *testing.T) {
	for in, want := range map[string]string{
		`"x"`:          `"x"`,
		`["a","b"]`:    `["a","b"]`,
		`{"k":"v"}`:    `{"k":"v"}`,
		`not json`:     `"not json"`,
		``:             `""`,
		`{"broken": 1`: `"{\"broken\": 1"`,
	} {
		if got := string(jsonValue(in)); got != want {
			t.Errorf("jsonValue(%q) = %s, want %s", in, got, want)
		}
	}
}
