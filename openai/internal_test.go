package openai

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	amem "github.com/amem-dev/amem"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"ms wins", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"7"}}, 250 * time.Millisecond},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"date", http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, 30 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryAfter(tc.h, now); got != tc.want {
				t.Errorf("retryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParamsMaxTokensField(t *testing.T) {
	for _, tc := range []struct {
		base, field string
	}{
		{"https://api.openai.com/v1", "max_completion_tokens"},
		{"http://localhost:11434/v1", "max_tokens"},
	} {
		c, err := NewChat(Config{BaseURL: tc.base, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.params(amem.LLMRequest{MaxTokens: 50, Messages: []amem.Message{{Role: "user", Content: "x"}}}, levelSchema)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m[tc.field] != 50.0 || len(m) != 3 {
			t.Errorf("%s: params %s, want %s", tc.base, b, tc.field)
		}
	}
}

func TestParamsUnknownRole(t *testing.T) {
	c, err := NewChat(Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.params(amem.LLMRequest{Messages: []amem.Message{{Role: "tool", Content: "x"}}}, levelSchema); err == nil {
		t.Error("role tool accepted")
	}
}

func TestSchemaName(t *testing.T) {
	for in, want := range map[string]string{
		"":                "response",
		"note attributes": "note_attributes",
		"a-b_C9":          "a-b_C9",
		"x😀y":             "x_y",
	} {
		if got := schemaName(in); got != want {
			t.Errorf("schemaName(%q) = %q, want %q", in, got, want)
		}
	}
	long := schemaName(strings.Repeat("a", 100))
	if len(long) != 64 {
		t.Errorf("len = %d", len(long))
	}
}
